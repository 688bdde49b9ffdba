# Installs what depends on the install prefix, which `cmake --install build --prefix P` gives only
# at install time (so nothing here may be computed when the build is configured): the systemd
# units with their paths under the prefix, and the example configuration in the system
# configuration folder. The top CMakeLists.txt runs it with install(SCRIPT), after setting
# FECD_SOURCE_DIR, FECD_BINARY_DIR, and FECD_SYSCONFDIR, FECD_BINDIR and FECD_DOCDIR (the
# GNUInstallDirs values as configured, normally relative to the prefix).
#
# The configuration folder: an absolute CMAKE_INSTALL_SYSCONFDIR is taken as it is; otherwise it
# is /etc for the prefixes /usr and / (as GNUInstallDirs has it, and as a distribution installs
# it), else PREFIX/etc, so that an install to any other prefix puts nothing outside it. DESTDIR
# goes in front of every path (file(INSTALL) adds it). An existing fecd.json is never overwritten:
# a reinstall leaves the administrator's file and says so.

cmake_policy(VERSION 3.20) # CMP0053: @VAR@ in the strings below is text, not a variable

set(prefix "${CMAKE_INSTALL_PREFIX}")
string(REGEX REPLACE "/+$" "" prefix "${prefix}")
if(IS_ABSOLUTE "${FECD_SYSCONFDIR}")
  set(sysconfdir "${FECD_SYSCONFDIR}")
elseif(prefix STREQUAL "/usr" OR prefix STREQUAL "")
  set(sysconfdir "/${FECD_SYSCONFDIR}")
else()
  set(sysconfdir "${prefix}/${FECD_SYSCONFDIR}")
endif()
foreach(dir BINDIR DOCDIR)
  if(IS_ABSOLUTE "${FECD_${dir}}")
    set(${dir} "${FECD_${dir}}")
  else()
    set(${dir} "${prefix}/${FECD_${dir}}")
  endif()
endforeach()

# The units, with the paths they name under this prefix.
foreach(unit fecd.service fecd@.service)
  file(READ "${FECD_SOURCE_DIR}/systemd/${unit}.in" text)
  string(REPLACE "@FECD_BINDIR@" "${BINDIR}" text "${text}")
  string(REPLACE "@FECD_SYSCONFDIR@" "${sysconfdir}" text "${text}")
  string(REPLACE "@FECD_DOCDIR@" "${DOCDIR}" text "${text}")
  file(WRITE "${FECD_BINARY_DIR}/systemd/${unit}" "${text}")
  file(INSTALL "${FECD_BINARY_DIR}/systemd/${unit}" DESTINATION "${prefix}/lib/systemd/system")
endforeach()

# The example configuration, unless one is there already.
set(conf "$ENV{DESTDIR}${sysconfdir}/fecd/fecd.json")
if(EXISTS "${conf}")
  message(STATUS "Kept: ${conf} (the example is ${FECD_SOURCE_DIR}/systemd/fecd.json)")
else()
  file(INSTALL "${FECD_SOURCE_DIR}/systemd/fecd.json" DESTINATION "${sysconfdir}/fecd")
endif()
