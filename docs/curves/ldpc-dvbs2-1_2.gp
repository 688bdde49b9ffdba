# fecd-sim plot: rerun with gnuplot FILE.gp after editing
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
  set terminal pngcairo enhanced font ',10' size 1600,600
} else {
  set terminal png size 1600,600
}
set output 'docs/curves/ldpc-dvbs2-1_2.png'
$c0b << EOD
0.75 7.172743e-02 7.137701e-02 7.207943e-02
0.8 3.434172e-02 3.409472e-02 3.459045e-02
0.85 9.382234e-03 9.289902e-03 9.475474e-03
0.9 8.635399e-04 8.515694e-04 8.756786e-04
0.95 6.446490e-05 6.329724e-05 6.565410e-05
EOD
$c0f << EOD
0.75 9.687500e-01 8.930271e-01 9.913879e-01
0.8 6.093750e-01 4.869192e-01 7.194443e-01
0.85 2.109375e-01 1.492131e-01 2.895067e-01
0.9 2.840909e-02 1.846456e-02 4.347227e-02
0.95 3.088663e-03 1.929361e-03 4.941108e-03
EOD
$r0 << EOD
-0.25 8.470696e-02
-0.214286 8.383166e-02
-0.178571 8.295962e-02
-0.142857 8.209086e-02
-0.107143 8.122543e-02
-0.0714286 8.036339e-02
-0.0357143 7.950476e-02
0 7.864960e-02
0.0357143 7.779795e-02
0.0714286 7.694986e-02
0.107143 7.610536e-02
0.142857 7.526449e-02
0.178571 7.442731e-02
0.214286 7.359385e-02
0.25 7.276415e-02
0.285714 7.193826e-02
0.321429 7.111623e-02
0.357143 7.029808e-02
0.392857 6.948386e-02
0.428571 6.867361e-02
0.464286 6.786738e-02
0.5 6.706520e-02
0.535714 6.626711e-02
0.571429 6.547316e-02
0.607143 6.468337e-02
0.642857 6.389780e-02
0.678571 6.311648e-02
0.714286 6.233944e-02
0.75 6.156673e-02
0.785714 6.079838e-02
0.821429 6.003443e-02
0.857143 5.927492e-02
0.892857 5.851988e-02
0.928571 5.776935e-02
0.964286 5.702336e-02
1 5.628195e-02
1.03571 5.554516e-02
1.07143 5.481301e-02
1.10714 5.408554e-02
1.14286 5.336278e-02
1.17857 5.264477e-02
1.21429 5.193153e-02
1.25 5.122311e-02
1.28571 5.051952e-02
1.32143 4.982080e-02
1.35714 4.912698e-02
1.39286 4.843809e-02
1.42857 4.775416e-02
1.46429 4.707521e-02
1.5 4.640128e-02
1.53571 4.573238e-02
1.57143 4.506854e-02
1.60714 4.440980e-02
1.64286 4.375617e-02
1.67857 4.310768e-02
1.71429 4.246435e-02
1.75 4.182621e-02
1.78571 4.119327e-02
1.82143 4.056556e-02
1.85714 3.994310e-02
1.89286 3.932591e-02
1.92857 3.871400e-02
1.96429 3.810740e-02
2 3.750613e-02
EOD
$r1 << EOD
0.187059 1.000000e-06
0.187059 1.000000e+00
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
set xrange [0.08706:1.1]
set xlabel 'Eb/N0 (dB)' noenhanced
set multiplot layout 1,2 title 'fecd-sim: awgn, seed 1' noenhanced
set ylabel 'bit error rate'
set yrange [1.000e-06:1.000e+00]
plot $c0b using 1:2:3:4 with yerrorlines ls 1 title 'dvbs2-1/2' noenhanced, \
  $r0 using 1:2 with lines ls 20 title 'uncoded BPSK' noenhanced, \
  $r1 using 1:2 with lines ls 31 title 'BI-AWGN limit R=0.5 (0.19 dB)' noenhanced
set ylabel 'frame error rate'
set yrange [1.000e-04:1.000e+00]
plot $c0f using 1:2:3:4 with yerrorlines ls 1 title 'dvbs2-1/2' noenhanced, \
  $r1 using 1:2 with lines ls 31 title 'BI-AWGN limit R=0.5 (0.19 dB)' noenhanced
unset multiplot
set output
