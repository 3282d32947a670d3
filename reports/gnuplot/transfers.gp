# transfers.gp - copy GB/s against transfer size (log-log), one line per
# benchmark + memory kind, one chart per direction (or per benchmark without
# a direction axis: bidir, d2d); the stated PCIe
# (or other) peak as a dashed line.
# Run by scripts/plot_gnuplot.sh; needs -e "datafile=...; outbase=...;
# nblocks=N; direction=...; peak=X; gpdir=..."
chart_title = "Transfers, " . direction . ": GB/s against size"
xlab = "transfer size (bytes)"
ylab = "bandwidth (GB/s, 1e9 B/s)"
xlog = 2
ylog = 10
xfmt = "2^{%L}"
peak_label = sprintf("theoretical peak %.4g GB/s", peak)
load gpdir . "/curves.gp"
