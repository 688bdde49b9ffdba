# fecd-sim plot: rerun with gnuplot FILE.gp after editing
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
  set terminal pngcairo enhanced font ',10' size 1600,600
} else {
  set terminal png size 1600,600
}
set output 'docs/curves/nbldpc-bds-b1c-sf2.png'
$c0b << EOD
0.5 6.643880e-02 6.520414e-02 6.769515e-02
0.75 3.904297e-02 3.808577e-02 4.002322e-02
1 1.925130e-02 1.857606e-02 1.995059e-02
1.25 2.320964e-03 2.203711e-03 2.444439e-03
1.5 3.987630e-04 3.518671e-04 4.519063e-04
1.75 7.421875e-05 5.729103e-05 9.614760e-05
2.25 1.581101e-05 9.872108e-06 2.532258e-05
EOD
$c0f << EOD
0.5 6.953125e-01 6.363863e-01 7.484638e-01
0.75 4.804688e-01 4.200088e-01 5.415062e-01
1 2.812500e-01 2.297209e-01 3.392470e-01
1.25 5.566406e-02 4.321031e-02 7.143914e-02
1.5 1.171875e-02 6.716157e-03 2.037115e-02
1.75 2.343750e-03 7.973996e-04 6.868234e-03
2.25 5.580357e-04 9.851380e-05 3.154256e-03
EOD
$r0 << EOD
-0.5 9.092121e-02
-0.436508 8.932896e-02
-0.373016 8.774610e-02
-0.309524 8.617288e-02
-0.246032 8.460955e-02
-0.18254 8.305635e-02
-0.119048 8.151353e-02
-0.0555556 7.998135e-02
0.00793651 7.846004e-02
0.0714286 7.694986e-02
0.134921 7.545103e-02
0.198413 7.396381e-02
0.261905 7.248843e-02
0.325397 7.102513e-02
0.388889 6.957413e-02
0.452381 6.813567e-02
0.515873 6.670999e-02
0.579365 6.529729e-02
0.642857 6.389780e-02
0.706349 6.251174e-02
0.769841 6.113933e-02
0.833333 5.978077e-02
0.896825 5.843627e-02
0.960317 5.710602e-02
1.02381 5.579024e-02
1.0873 5.448911e-02
1.15079 5.320281e-02
1.21429 5.193153e-02
1.27778 5.067545e-02
1.34127 4.943474e-02
1.40476 4.820956e-02
1.46825 4.700008e-02
1.53175 4.580645e-02
1.59524 4.462881e-02
1.65873 4.346732e-02
1.72222 4.232209e-02
1.78571 4.119327e-02
1.84921 4.008097e-02
1.9127 3.898531e-02
1.97619 3.790639e-02
2.03968 3.684431e-02
2.10317 3.579917e-02
2.16667 3.477104e-02
2.23016 3.376001e-02
2.29365 3.276615e-02
2.35714 3.178951e-02
2.42063 3.083014e-02
2.48413 2.988809e-02
2.54762 2.896339e-02
2.61111 2.805608e-02
2.6746 2.716616e-02
2.7381 2.629365e-02
2.80159 2.543855e-02
2.86508 2.460085e-02
2.92857 2.378053e-02
2.99206 2.297756e-02
3.05556 2.219191e-02
3.11905 2.142355e-02
3.18254 2.067240e-02
3.24603 1.993841e-02
3.30952 1.922152e-02
3.37302 1.852164e-02
3.43651 1.783868e-02
3.5 1.717254e-02
EOD
$r1 << EOD
0.187059 1.000000e-07
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
set xrange [0.08706:2.6]
set xlabel 'Eb/N0 (dB)' noenhanced
set multiplot layout 1,2 title 'fecd-sim: awgn, seed 1' noenhanced
set ylabel 'bit error rate'
set yrange [1.000e-07:1.000e+00]
plot $c0b using 1:2:3:4 with yerrorlines ls 1 title 'bds-b1c-sf2' noenhanced, \
  $r0 using 1:2 with lines ls 20 title 'uncoded BPSK' noenhanced, \
  $r1 using 1:2 with lines ls 31 title 'BI-AWGN limit R=0.5 (0.19 dB)' noenhanced
set ylabel 'frame error rate'
set yrange [1.000e-06:1.000e+00]
plot $c0f using 1:2:3:4 with yerrorlines ls 1 title 'bds-b1c-sf2' noenhanced, \
  $r1 using 1:2 with lines ls 31 title 'BI-AWGN limit R=0.5 (0.19 dB)' noenhanced
unset multiplot
set output
