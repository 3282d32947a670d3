# curves.gp - draw the data blocks written by prepare.awk, to PNG and SVG.
#
# Loaded by vecadd.gp, matmul.gp and transfers.gp after they set the labels.
# Variables: datafile, outbase (path without extension), nblocks, styles (the
# line type of each block, space-separated: scripts/plot_gnuplot.sh picks
# them by reports/style.py's rule), chart_title, xlab, ylab, xlog (0, 2 or
# 10), ylog (0 or 10), xfmt (tick format, "" for gnuplot's default), peak
# (0 = none) and peak_label. Colours, markers and the peak's dashed black
# come from style.gp, the report's one convention.

load gpdir . "/style.gp"

set title chart_title noenhanced
set xlabel xlab
set ylabel ylab
set key outside right top noenhanced font ",9"
set grid xtics ytics lc rgb "#dddddd"
set datafile separator whitespace
if (xlog > 0) { set logscale x xlog }
if (ylog > 0) { set logscale y ylog }
if (strlen(xfmt) > 0) { set format x xfmt }
set xtics rotate by 45 right
set style data linespoints

# Every measured curve solid, in the line type style.gp gives its kind.
plotcmd = "plot for [i=0:nblocks-1] datafile index i using 1:2 title columnheader(1) lt (word(styles, i+1)+0)"
if (peak > 0) { plotcmd = plotcmd . sprintf(", %g title peak_label ", peak) . peak_style }

set terminal pngcairo size 1100,620 font "DejaVu Sans,10" enhanced
set output outbase . ".png"
eval plotcmd
set terminal svg size 1100,620 font "DejaVu Sans,10" enhanced
set output outbase . ".svg"
eval plotcmd
unset output
