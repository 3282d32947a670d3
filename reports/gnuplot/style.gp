# style.gp - written from reports/style.py (one convention for matplotlib and
# gnuplot); reports/tests/test_gnuplot.py checks that the two agree.
# Line types 1..8: measured curves; 9..11: CPU baselines; 12..15: references.
set linetype 1 lc rgb "#1f77b4" lw 1.5 dt 1 pt 7 ps 0.6
set linetype 2 lc rgb "#ff7f0e" lw 1.5 dt 1 pt 7 ps 0.6
set linetype 3 lc rgb "#2ca02c" lw 1.5 dt 1 pt 7 ps 0.6
set linetype 4 lc rgb "#d62728" lw 1.5 dt 1 pt 7 ps 0.6
set linetype 5 lc rgb "#9467bd" lw 1.5 dt 1 pt 7 ps 0.6
set linetype 6 lc rgb "#e377c2" lw 1.5 dt 1 pt 7 ps 0.6
set linetype 7 lc rgb "#bcbd22" lw 1.5 dt 1 pt 7 ps 0.6
set linetype 8 lc rgb "#17becf" lw 1.5 dt 1 pt 7 ps 0.6
set linetype 9 lc rgb "#8c564b" lw 1.5 dt 1 pt 5 ps 0.6
set linetype 10 lc rgb "#a0522d" lw 1.5 dt 1 pt 5 ps 0.6
set linetype 11 lc rgb "#6b4226" lw 1.5 dt 1 pt 5 ps 0.6
set linetype 12 lc rgb "#000000" lw 1.5 dt 1 pt 13 ps 0.7
set linetype 13 lc rgb "#555555" lw 1.5 dt 1 pt 13 ps 0.7
set linetype 14 lc rgb "#888888" lw 1.5 dt 1 pt 13 ps 0.7
set linetype 15 lc rgb "#aaaaaa" lw 1.5 dt 1 pt 13 ps 0.7
peak_style = "dt 2 lw 1.2 lc rgb '#000000'"
