# fecd-sim plot: rerun with gnuplot FILE.gp after editing
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
  set terminal pngcairo enhanced font ',10' size 1600,600
} else {
  set terminal png size 1600,600
}
set output 'docs/curves/ids-dm-ldpc.png'
$c0b << EOD
3 2.577969e-01 2.554079e-01 2.602004e-01
4 1.885000e-01 1.863668e-01 1.906519e-01
5 8.668750e-02 8.515842e-02 8.824139e-02
6 1.310156e-02 1.249308e-02 1.373927e-02
7 3.125000e-04 2.295151e-04 4.254766e-04
8 7.812500e-05 4.243792e-05 1.438179e-04
9 3.906250e-05 1.668528e-05 9.144787e-05
EOD
$c0f << EOD
3 1.000000e+00 9.708630e-01 1.000000e+00
4 1.000000e+00 9.708630e-01 1.000000e+00
5 8.984375e-01 8.339751e-01 9.396814e-01
6 2.968750e-01 2.245817e-01 3.810052e-01
7 3.906250e-02 1.679861e-02 8.818702e-02
8 2.343750e-02 8.002416e-03 6.664375e-02
9 1.562500e-02 4.295450e-03 5.518098e-02
EOD
set logscale y
set format y '10^{%L}'
set grid xtics ytics mytics
set key bottom left box opaque
set bars small
set style line 1 lc rgb '#0072b2' lw 2 pt 7
set style line 2 lc rgb '#d55e00' lw 2 pt 5
set style line 3 lc rgb '#009e73' lw 2 pt 9
set style line 4 lc rgb '#cc79a7' lw 2 pt 11
set style line 5 lc rgb '#e69f00' lw 2 pt 13
set style line 6 lc rgb '#56b4e9' lw 2 pt 4
set style line 7 lc rgb '#000000' lw 2 pt 6
set style line 8 lc rgb '#f0e442' lw 2 pt 8
set style line 20 lc rgb '#555555' lw 1.5 dt 2
set style line 30 lc rgb '#555555' lw 1.5 dt 4
set style line 21 lc rgb '#0072b2' lw 1.5 dt 2
set style line 31 lc rgb '#0072b2' lw 1.5 dt 4
set style line 22 lc rgb '#d55e00' lw 1.5 dt 2
set style line 32 lc rgb '#d55e00' lw 1.5 dt 4
set style line 23 lc rgb '#009e73' lw 1.5 dt 2
set style line 33 lc rgb '#009e73' lw 1.5 dt 4
set style line 24 lc rgb '#cc79a7' lw 1.5 dt 2
set style line 34 lc rgb '#cc79a7' lw 1.5 dt 4
set style line 25 lc rgb '#e69f00' lw 1.5 dt 2
set style line 35 lc rgb '#e69f00' lw 1.5 dt 4
set style line 26 lc rgb '#56b4e9' lw 1.5 dt 2
set style line 36 lc rgb '#56b4e9' lw 1.5 dt 4
set style line 27 lc rgb '#999999' lw 1.5 dt 2
set style line 37 lc rgb '#999999' lw 1.5 dt 4
set xrange [2.9:9.1]
set xlabel 'Eb/N0 (dB)' noenhanced
set multiplot layout 1,2 title 'fecd-sim: bsid,pi=0.03,pd=0.03, seed 1' noenhanced
set ylabel 'bit error rate'
set yrange [1.000e-06:1.000e+00]
plot $c0b using 1:2:3:4 with yerrorlines ls 1 title 'dm-ldpc,pi=0.03,pd=0.03' noenhanced
set ylabel 'frame error rate'
set yrange [1.000e-04:1.000e+00]
plot $c0f using 1:2:3:4 with yerrorlines ls 1 title 'dm-ldpc,pi=0.03,pd=0.03' noenhanced
unset multiplot
set output
