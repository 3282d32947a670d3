# matmul.gp - matmul TFLOP/s against matrix size, one line per rung and per
# cuBLAS reference (best over other axes such as the tile at each size).
# Run by scripts/plot_gnuplot.sh; needs -e "datafile=...; outbase=...;
# nblocks=N; xname=...; gpdir=..."
chart_title = "Matmul ladder: TFLOP/s against size (best over other axes)"
xlab = xname . " (matrix dimension)"
ylab = "TFLOP/s (1e12 FLOP/s)"
xlog = 2
ylog = 10
xfmt = "%.0f"
peak = 0
peak_label = ""
load gpdir . "/curves.gp"
