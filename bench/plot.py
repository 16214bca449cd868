#!/usr/bin/env python3
"""plot.py: draws the suite's results as PNG charts (matplotlib), else as SVG (standard library).

    bench/plot.py OUTDIR/results.csv [DIR]     (writes DIR/launch.png, DIR/transfer.png,
                                                DIR/staging.png and DIR/device.png, or .svg
                                                without matplotlib;
                                                DIR defaults to the CSV's folder)

launch: host ns per launch for each kernel (0, 4, 16 parameters) and variant, the ratio to raw
cuLaunchKernel printed on each bar. transfer: `_call` round-trip GB/s against buffer size (log
scale), cubind and the driver, pageable and pinned. staging (PNG only): pageable round trips,
GB/s against size: the driver's plain pageable copy, cubind by default (the staging threads)
and with staging off (each labelled run). device (PNG only): device-resident GB/s of every
implementation device_ops and python_peers.py measured, grouped by operation, with p10-p90
whiskers. Set PLOT_SVG=1 to force SVG.
"""
import csv
import math
import os
import sys
from xml.sax.saxutils import escape

COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2"]


def load(path):
    rows = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            rows[(r["benchmark"], r["case"], r["variant"], r["metric"])] = float(r["value"])
    return rows


def text(x, y, s, size=12, anchor="middle", rotate=None):
    rot = f' transform="rotate({rotate} {x:.1f} {y:.1f})"' if rotate else ""
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
            f'font-family="sans-serif"{rot}>{escape(s)}</text>')


def svg(width, height, body):
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}"><rect width="100%" height="100%" fill="white"/>'
            + "\n".join(body) + "</svg>\n")


def launch_chart(rows):
    kernels = ["empty0", "empty4", "empty16"]
    variants = [v for v in ["cubind_stub", "cuLaunchKernel", "cuLaunchKernel_2", "ctx+cuLaunch",
                            "cuLaunchKernelEx", "runtime_<<<>>>"]
                if ("launch_overhead", "empty0", v, "ns_per_launch") in rows]
    if not variants:
        return None
    vmax = max(rows[("launch_overhead", k, v, "ns_per_launch")] for k in kernels for v in variants)
    W, H, L, B, T = 900, 460, 70, 60, 40
    plot_h = H - B - T
    group_w = (W - L - 20) / len(kernels)
    bar_w = group_w * 0.8 / len(variants)
    scale = plot_h / (vmax * 1.1)
    body = [text(W / 2, 22, "Host time per launch (median ns; ratio to raw cuLaunchKernel)", 15)]
    for i in range(6):  # y grid
        v = vmax * 1.1 * i / 5
        y = H - B - v * scale
        body.append(f'<line x1="{L}" y1="{y:.1f}" x2="{W - 20}" y2="{y:.1f}" stroke="#ddd"/>')
        body.append(text(L - 6, y + 4, f"{v:.0f}", 11, "end"))
    body.append(text(18, T + plot_h / 2, "ns per launch", 12, rotate=-90))
    for gi, k in enumerate(kernels):
        x0 = L + gi * group_w + group_w * 0.1
        for vi, v in enumerate(variants):
            val = rows[("launch_overhead", k, v, "ns_per_launch")]
            ratio = rows.get(("launch_overhead", k, v, "ratio_vs_raw"), float("nan"))
            x, h = x0 + vi * bar_w, val * scale
            body.append(f'<rect x="{x:.1f}" y="{H - B - h:.1f}" width="{bar_w * 0.9:.1f}" '
                        f'height="{h:.1f}" fill="{COLORS[vi % len(COLORS)]}"/>')
            body.append(text(x + bar_w * 0.45, H - B - h - 4, f"{ratio:.3f}", 9))
        body.append(text(L + gi * group_w + group_w / 2, H - B + 18,
                         k.replace("empty", "") + " parameters", 12))
    for vi, v in enumerate(variants):  # legend
        x = L + vi * (W - L) / len(variants)
        body.append(f'<rect x="{x:.1f}" y="{H - 26}" width="10" height="10" '
                    f'fill="{COLORS[vi % len(COLORS)]}"/>')
        body.append(text(x + 14, H - 17, v, 11, "start"))
    return svg(W, H, body)


def transfer_chart(rows):
    sizes = [c for c in ["4KiB", "64KiB", "1MiB", "4MiB", "16MiB", "64MiB", "256MiB", "1GiB"]
             if ("call_transfer", c, "cubind_call", "GBps_pinned") in rows]
    if not sizes:
        return None
    nbytes = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
    xs = [math.log2(int(c[:-3]) * nbytes[c[-3:]]) for c in sizes]
    series = [(impl, mem) for mem in ["pinned", "pageable"] for impl in ["cubind_call", "driver"]]
    vmax = max(rows[("call_transfer", c, i, "GBps_" + m)] for c in sizes for i, m in series)
    W, H, L, B, T, R = 820, 440, 70, 70, 40, 20
    pw, ph = W - L - R, H - B - T
    def px(x):
        return L + (x - xs[0]) / max(xs[-1] - xs[0], 1) * pw
    def py(v):
        return H - B - v / (vmax * 1.1) * ph
    body = [text(W / 2, 22, "_call round trip: GB/s = 2 x bytes / time (median)", 15)]
    for i in range(6):
        v = vmax * 1.1 * i / 5
        body.append(f'<line x1="{L}" y1="{py(v):.1f}" x2="{W - R}" y2="{py(v):.1f}" stroke="#ddd"/>')
        body.append(text(L - 6, py(v) + 4, f"{v:.0f}", 11, "end"))
    for c, x in zip(sizes, xs):
        body.append(text(px(x), H - B + 18, c, 11))
    body.append(text(18, T + ph / 2, "GB/s", 12, rotate=-90))
    for si, (impl, mem) in enumerate(series):
        pts = [(px(x), py(rows[("call_transfer", c, impl, "GBps_" + mem)]))
               for c, x in zip(sizes, xs)]
        dash = ' stroke-dasharray="6 4"' if impl == "driver" else ""
        color = COLORS[0] if mem == "pinned" else COLORS[1]
        body.append(f'<polyline fill="none" stroke="{color}" stroke-width="2"{dash} points="'
                    + " ".join(f"{x:.1f},{y:.1f}" for x, y in pts) + '"/>')
        lx = L + si * pw / 4
        body.append(f'<line x1="{lx:.1f}" y1="{H - 22}" x2="{lx + 24:.1f}" y2="{H - 22}" '
                    f'stroke="{color}" stroke-width="2"{dash}/>')
        body.append(text(lx + 28, H - 18, f"{impl}, {mem}", 11, "start"))
    return svg(W, H, body)


SIZES = ["4KiB", "64KiB", "1MiB", "4MiB", "16MiB", "64MiB", "256MiB", "1GiB"]


def size_bytes(c):
    return int(c[:-3]) * {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[c[-3:]]


def png_charts(rows, out):
    """The charts as PNG with matplotlib; returns the files written ([] if nothing to draw)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    written = []

    kernels = ["empty0", "empty4", "empty16"]
    variants = [v for v in ["cubind_stub", "cuLaunchKernel", "cuLaunchKernel_2", "ctx+cuLaunch",
                            "cuLaunchKernelEx", "runtime_<<<>>>"]
                if ("launch_overhead", "empty0", v, "ns_per_launch") in rows]
    if variants:
        fig, ax = plt.subplots(figsize=(10, 5))
        w = 0.8 / len(variants)
        for vi, v in enumerate(variants):
            vals = [rows.get(("launch_overhead", k, v, "ns_per_launch"), float("nan"))
                    for k in kernels]
            xs = [ki + vi * w for ki in range(len(kernels))]
            bars = ax.bar(xs, vals, w * 0.9, label=v, color=COLORS[vi % len(COLORS)])
            for b, k in zip(bars, kernels):
                ratio = rows.get(("launch_overhead", k, v, "ratio_vs_raw"))
                if ratio is not None:
                    ax.annotate(f"{ratio:.3f}", (b.get_x() + b.get_width() / 2, b.get_height()),
                                ha="center", va="bottom", fontsize=7)
        ax.set_xticks([ki + 0.4 - w / 2 for ki in range(len(kernels))])
        ax.set_xticklabels([k.replace("empty", "") + " parameters" for k in kernels])
        ax.set_ylabel("host ns per launch (median)")
        ax.set_title("Launch cost; ratio to raw cuLaunchKernel on each bar")
        ax.legend(fontsize=8, ncol=3, loc="lower center")
        fig.tight_layout()
        fig.savefig(os.path.join(out, "launch.png"), dpi=120)
        plt.close(fig)
        written.append("launch.png")

    def series(variant, metric):
        pts = [(size_bytes(c), rows[("call_transfer", c, variant, metric)]) for c in SIZES
               if ("call_transfer", c, variant, metric) in rows]
        return [p[0] for p in pts], [p[1] for p in pts]

    if ("call_transfer", "4KiB", "cubind_call", "GBps_pinned") in rows:
        fig, ax = plt.subplots(figsize=(9, 5))
        for impl, mem, color, style in [("cubind_call", "pinned", COLORS[0], "-"),
                                        ("driver", "pinned", COLORS[0], "--"),
                                        ("cubind_call", "pageable", COLORS[1], "-"),
                                        ("driver", "pageable", COLORS[1], "--")]:
            xs, ys = series(impl, "GBps_" + mem)
            ax.plot(xs, ys, style, color=color, marker="o", label=f"{impl}, {mem}")
        ax.set_xscale("log", base=2)
        ax.set_xticks([size_bytes(c) for c in SIZES if series("cubind_call", "GBps_pinned")[0]
                       and size_bytes(c) <= max(series("cubind_call", "GBps_pinned")[0])])
        ax.set_xticklabels([c for c in SIZES if size_bytes(c) <= max(
            series("cubind_call", "GBps_pinned")[0])])
        ax.set_ylabel("GB/s (2 x bytes / median round trip)")
        ax.set_title("_call round trips: cubind vs the driver's plain copies")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(out, "transfer.png"), dpi=120)
        plt.close(fig)
        written.append("transfer.png")

        labels = sorted({k[2] for k in rows if k[0] == "call_transfer" and k[3] == "GBps_pageable"
                         and k[2].startswith("cubind_call@")})
        fig, ax = plt.subplots(figsize=(9, 5))
        xs, ys = series("driver", "GBps_pageable")
        ax.plot(xs, ys, "--", color="black", marker="o", label="driver cuMemcpyHtoD/DtoH, pageable")
        xs, ys = series("cubind_call", "GBps_pageable")
        ax.plot(xs, ys, "-", color=COLORS[1], marker="o", linewidth=2.5,
                label="cubind _call, staging default")
        for li, v in enumerate(labels):
            xs, ys = series(v, "GBps_pageable")
            ax.plot(xs, ys, "-", color=COLORS[(li + 2) % len(COLORS)], marker=".",
                    label="cubind _call, " + v.split("@", 1)[1])
        xs, ys = series("driver", "GBps_pinned")
        ax.plot(xs, ys, ":", color=COLORS[0], label="driver, page-locked (ceiling)")
        ax.set_xscale("log", base=2)
        ax.set_xticks([size_bytes(c) for c in SIZES])
        ax.set_xticklabels(SIZES)
        ax.set_ylabel("GB/s (2 x bytes / median round trip)")
        ax.set_xlabel("buffer size")
        ax.set_title("Pageable _call round trips: cubind's staging threads vs the driver's copy")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(out, "staging.png"), dpi=120)
        plt.close(fig)
        written.append("staging.png")

    bars = device_bars(rows)
    if bars:
        fig, ax = plt.subplots(figsize=(10, 0.32 * len(bars) + 1.5))
        ys = list(range(len(bars)))[::-1]
        for y, (op, name, median, p10, p90) in zip(ys, bars):
            color = COLORS[0] if name.startswith("cubind") else (
                "black" if name.startswith("driver") or name.startswith("CUB") else COLORS[1])
            ax.barh(y, median, color=color, xerr=[[median - p10], [p90 - median]], capsize=2)
            ax.text(p90 + 25, y, f"{median:.0f}", va="center", fontsize=7)
        ax.set_yticks(ys)
        ax.set_yticklabels([f"{b[0]}: {b[1]}" for b in bars], fontsize=7)
        ax.set_xlabel("GB/s read + written (median; whiskers p10-p90)")
        ax.set_title("Device-resident, same data: cubind (blue), PyCUDA / CuPy / numba (orange),\n"
                     "the driver's copy and C++ CUB (black)", fontsize=10)
        ax.grid(axis="x", alpha=0.3)
        fig.tight_layout()
        fig.savefig(os.path.join(out, "device.png"), dpi=120)
        plt.close(fig)
        written.append("device.png")
    return written


def device_bars(rows):
    """(op, implementation, median, p10, p90) of device_ops and python_peers' device cases."""
    bars = []
    for op in ["copy", "vector_add", "lin_comb", "scale", "sum"]:
        for (bench, case, variant, metric), value in rows.items():
            if case.split(" ")[0] != op:
                continue
            if bench == "device_ops" and metric == "GBps_median":
                name = {"cuMemcpyDtoD": "driver cuMemcpyDtoD",
                        "cub_DeviceReduce_Sum": "CUB DeviceReduce::Sum"}.get(variant,
                                                                          "cubind " + variant)
                bars.append((op, name, value, rows[(bench, case, variant, "GBps_p10")],
                             rows[(bench, case, variant, "GBps_p90")]))
            elif bench == "python_device_ops" and metric == "median":
                bars.append((op, variant, value, rows[(bench, case, variant, "p10")],
                             rows[(bench, case, variant, "p90")]))
    return bars


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    rows = load(sys.argv[1])
    out = sys.argv[2] if len(sys.argv) == 3 else os.path.dirname(os.path.abspath(sys.argv[1]))
    os.makedirs(out, exist_ok=True)
    if os.environ.get("PLOT_SVG") != "1":
        try:
            written = png_charts(rows, out)
        except ImportError:
            written = None
        if written is not None:
            for name in written:
                print("wrote", os.path.join(out, name))
            return
    for name, chart in (("launch.svg", launch_chart(rows)), ("transfer.svg", transfer_chart(rows))):
        if chart:
            with open(os.path.join(out, name), "w") as f:
                f.write(chart)
            print("wrote", os.path.join(out, name))


if __name__ == "__main__":
    main()
