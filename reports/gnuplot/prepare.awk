# prepare.awk - turn results.csv (schema version 1 or 2) into gnuplot data blocks.
#
# Plain POSIX awk (mawk, gawk, busybox), so that plotting needs no Python.
# It reads the RFC 4180 file itself (quoted fields with commas, doubled
# quotes, newlines), keeps the timed rows (status ok or noisy) of one family,
# and prints one data block per curve: a header line with the curve's title,
# then "x y id" lines in ascending x, blocks separated by two blank lines
# (gnuplot's `index`). For each x the largest y over the other axes is kept.
#
# Variables (-v):
#   family  benchmarks whose `family` column equals this      (required)
#   xaxis   comma-separated axis names; the first one a row has is x (required)
#   metric  results column plotted as y, e.g. gbps or tflops   (required)
#   curve   "benchmark": one curve per benchmark (best over other axes);
#           "axes": one per benchmark + other axes values, titled
#           "variant value value..."                            (default benchmark)
#   panel_axis, panel  keep rows whose axis panel_axis equals panel; a row
#           without that axis belongs to the panel named after its variant
#           (optional)
#   skip_axis  drop rows that have this axis (e.g. streams)      (optional)
#   mode    "data" (default), "panels" (print the distinct panels, one a
#           line, in the order they first appear), "peak" (print the most
#           common `peak` of the selected rows whose peak_unit is `unit`)
#   unit    for mode=peak
#
# Exit status 2 with a message on stderr when a needed column is missing or
# the schema version is neither 1 nor 2 (2 only appends columns; the ones read
# here are in both).

function parse_csv(line, out,    n, i, c, field, inq) {
    n = 0; field = ""; inq = 0
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (inq) {
            if (c == "\"") {
                if (substr(line, i + 1, 1) == "\"") { field = field "\""; i++ }
                else inq = 0
            } else field = field c
        } else if (c == "\"") inq = 1
        else if (c == ",") { out[++n] = field; field = "" }
        else field = field c
    }
    out[++n] = field
    return n
}

function quotes(s,    t) { t = s; return gsub(/"/, "", t) }

function axis_value(axes, name,    n, i, parts, kv) {
    n = split(axes, parts, ";")
    for (i = 1; i <= n; i++) {
        split(parts[i], kv, "=")
        if (kv[1] == name) return substr(parts[i], length(name) + 2)
    }
    return ""
}

function has_axis(axes, name) {
    return (";" axes ";") ~ (";" name "=")
}

function other_axes(axes, skip1, skip2,    n, i, parts, kv, out) {
    n = split(axes, parts, ";"); out = ""
    for (i = 1; i <= n; i++) {
        split(parts[i], kv, "=")
        if (kv[1] == skip1 || kv[1] == skip2) continue
        out = out (out == "" ? "" : " ") substr(parts[i], length(kv[1]) + 2)
    }
    return out
}

# The chart a row belongs to: its panel_axis value, or the benchmark's
# variant when it has no such axis (transfers/bidir, transfers/d2d).
function panel_of(axes, bench,    v) {
    if (has_axis(axes, panel_axis)) return axis_value(axes, panel_axis)
    v = bench
    sub(/^[^\/]*\//, "", v)
    return v
}

function need(name) {
    if (!(name in col)) {
        printf "prepare.awk: %s: missing column %s (schema versions 1 and 2)\n", FILENAME, name > "/dev/stderr"
        bad = 1; exit 2
    }
}

BEGIN {
    if (curve == "") curve = "benchmark"
    if (mode == "") mode = "data"
    nx = split(xaxis, xnames, ",")
}

# Join physical lines until the quotes balance (a quoted field may hold a newline).
{
    if (pending != "") { $0 = pending "\n" $0; pending = "" }
    if (quotes($0) % 2 == 1) { pending = $0; next }
    sub(/\r$/, "")
}

header == 0 {
    header = 1
    nf = parse_csv($0, h)
    for (i = 1; i <= nf; i++) col[h[i]] = i
    need("schema_version"); need("benchmark"); need("family"); need("axes")
    need("status"); need("peak"); need("peak_unit")
    if (mode == "data") need(metric)
    next
}

{
    n = parse_csv($0, f)
    sv = f[col["schema_version"]]
    if (sv != "1" && sv != "2" && sv != "3") {
        printf "prepare.awk: %s:%d: schema_version %s, expected 1, 2 or 3\n", FILENAME, FNR, f[col["schema_version"]] > "/dev/stderr"
        bad = 1; exit 2
    }
    if (f[col["family"]] != family) next
    st = f[col["status"]]
    axes = f[col["axes"]]
    if (st != "ok" && st != "noisy") next
    if (skip_axis != "" && has_axis(axes, skip_axis)) next
    if (panel_axis != "" && mode == "panels") {
        v = panel_of(axes, f[col["benchmark"]])
        if (!(v in seen_panel)) { seen_panel[v] = 1; panels[++npanels] = v }
        next
    }
    if (panel_axis != "" && panel_of(axes, f[col["benchmark"]]) != panel) next
    if (mode == "peak") {
        if (f[col["peak_unit"]] == unit && f[col["peak"]] != "") peaks[f[col["peak"]]]++
        next
    }
    x = ""
    for (i = 1; i <= nx; i++) if (has_axis(axes, xnames[i])) { xname = xnames[i]; x = axis_value(axes, xname); break }
    y = f[col[metric]]
    if (x == "" || y == "" || x !~ /^[0-9.eE+-]+$/) next
    bench = f[col["benchmark"]]
    label = bench
    sub(/^[^\/]*\//, "", label)
    if (curve == "axes") {
        rest = other_axes(axes, xname, panel_axis)
        if (rest != "") label = label " " rest
        key = bench SUBSEP rest
    } else key = bench
    if (!(key in kidx)) { kidx[key] = ++nkeys; klabel[nkeys] = label; kbench[nkeys] = bench }
    k = kidx[key]
    if (!((k, x) in best) || y + 0 > best[k, x] + 0) {
        if (!((k, x) in best)) { cnt[k]++; xs[k, cnt[k]] = x }
        best[k, x] = y; bestid[k, x] = bench "[" axes "]"
    }
}

END {
    if (bad) exit 2
    if (header == 0) {
        printf "prepare.awk: %s: empty file (expected a header line)\n", FILENAME > "/dev/stderr"
        exit 2
    }
    if (mode == "panels") { for (i = 1; i <= npanels; i++) print panels[i]; exit 0 }
    if (mode == "peak") {
        top = ""; topn = 0
        for (p in peaks) if (peaks[p] > topn) { top = p; topn = peaks[p] }
        print top
        exit 0
    }
    for (k = 1; k <= nkeys; k++) {
        # insertion sort of this curve's x values (numeric)
        m = cnt[k]
        for (i = 1; i <= m; i++) order[i] = xs[k, i]
        for (i = 2; i <= m; i++) {
            v = order[i]; j = i - 1
            while (j >= 1 && order[j] + 0 > v + 0) { order[j + 1] = order[j]; j-- }
            order[j + 1] = v
        }
        if (k > 1) printf "\n\n"
        printf "\"%s\" \"%s\" id\n", klabel[k], metric
        for (i = 1; i <= m; i++) printf "%s %s %s\n", order[i], best[k, order[i]], bestid[k, order[i]]
    }
}
