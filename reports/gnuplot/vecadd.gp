# vecadd.gp - vector add GB/s against n, one line per variant (best over
# block and grid at each n), with the theoretical DRAM peak when stated.
# Run by scripts/plot_gnuplot.sh; needs -e "datafile=...; outbase=...;
# nblocks=N; peak=X; gpdir=..."
chart_title = "Vector add bandwidth (best over block, grid at each n)"
xlab = "n (elements per vector)"
ylab = "bandwidth (GB/s, 1e9 B/s)"
xlog = 2
ylog = 10
xfmt = "2^{%L}"
peak_label = sprintf("theoretical DRAM peak %.0f GB/s", peak)
load gpdir . "/curves.gp"
