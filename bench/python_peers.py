#!/usr/bin/env python3
"""python_peers.py: what cubind's users compare it with, on the same GPU in the same run.

The same kernels and sizes as cubind's own benchmarks, through PyCUDA, CuPy and numba-cuda
(each where it is installed; a missing one is reported, never counted):

  launch      host microseconds per launch of an empty kernel with 4 parameters
              (launch_overhead's 4-parameter case): PyCUDA prepared_async_call and __call__,
              CuPy RawKernel, numba @cuda.jit; batches of 1000 launches, then one synchronize
  inout       a float buffer copied in, doubled in place, copied back (call_transfer's INOUT
              case) at 64 MiB, pageable: PyCUDA drv.InOut, CuPy asarray/asnumpy, numba
              to_device/copy_to_host
  vector_add  numba's vectorAdd, C = A + B over 320,000,000 floats in host arrays (issue 15):
              numba @vectorize(target='cuda'), PyCUDA ElementwiseKernel with to_gpu/get, CuPy
              elementwise add with asarray/asnumpy
  sum_squares the seeds' sum of squares over a 4000 x 4000 float matrix from the host: PyCUDA
              ReductionKernel, CuPy (x*x).sum(), numba cuda.reduce
  device_ops  device-resident GB/s (bytes read + bytes written / time, CUDA events around each
              run) over --device-n floats (default 64M, 256 MiB per array: device_ops's N),
              inputs and outputs already on the GPU, as bench/device_ops measures cubind:
              vector_add (c = a + b): PyCUDA ElementwiseKernel, CuPy a + b, numba @vectorize
              on device arrays; lin_comb (z = 2.5 x - 1.25 y): PyCUDA and CuPy ElementwiseKernel,
              numba @vectorize; sum (bytes read): PyCUDA gpuarray.sum and ReductionKernel,
              cupy.sum, numba cuda.reduce into a device result

Every result is checked against NumPy. Each case runs `--repeats` times after a warm-up; the
table gives the median and the 10th and 90th percentiles (of ms, us or GB/s: for GB/s p10 is the
slow end), and --csv appends rows in run_all.sh's format (benchmark,case,variant,metric,value,
unit).

  python3 bench/python_peers.py [--repeats N] [--csv results.csv] [--small] [--device-n N]
Exit status: 0, 77 when no GPU or none of the three is installed, 1 when a result is wrong.
"""
import argparse
import statistics
import sys
import time

import numpy as np

RESULTS = []  # (benchmark, case, variant, samples in ms or us, unit)


def percentiles(samples):
    ordered = sorted(samples)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1) + 0.5))]
    return pick(0.1), statistics.median(ordered), pick(0.9)


def record(benchmark, case, variant, samples, unit):
    RESULTS.append((benchmark, case, variant, samples, unit))
    p10, p50, p90 = percentiles(samples)
    print(f"{benchmark:<12} {case:<22} {variant:<28} {p50:12.3f} {p10:12.3f} {p90:12.3f} {unit}",
          flush=True)


def check(name, got, want, rtol=1e-5, atol=0.0):
    if not np.allclose(got, want, rtol=rtol, atol=atol):
        bad = np.flatnonzero(~np.isclose(got, want, rtol=rtol, atol=atol))
        raise SystemExit(f"python_peers: {name}: wrong result at {bad[:5]} "
                         f"(got {np.ravel(got)[bad[:5]]}, want {np.ravel(want)[bad[:5]]})")


def timed(fn, repeats, per=1.0):
    fn()  # warm-up: compilation, module load, first allocation
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * per)
    return samples


def gbps_events(fn, repeats, nbytes, new_event, elapsed_ms, reset_l2):
    """GB/s of `fn` (work queued on the default stream), timed with CUDA events per run, each
    run after reset_l2() (untimed): the L2 in the same state before every run of every case,
    as bench/device_ops does."""
    fn()  # warm-up: compilation, module load, first allocation
    start, stop = new_event(), new_event()
    samples = []
    for _ in range(repeats):
        reset_l2()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        samples.append(nbytes / (elapsed_ms(start, stop) * 1e6))
    return samples


def l2_reset_bytes(l2_size):
    """What each L2 reset writes: twice the L2 (device_ops's size), 128 MiB if unknown."""
    return 2 * l2_size if l2_size and l2_size > 0 else 128 << 20


# lin_comb's coefficients, as in bench/device_ops.c: z = ALPHA x + BETA y.
ALPHA = np.float32(2.5)
BETA = np.float32(-1.25)


def device_inputs(n):
    """device_ops's inputs: a in [0, 1) (the sum's input: no cancellation), b in [-1, 1)."""
    rng = np.random.default_rng(3)
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32) * np.float32(2) - np.float32(1)
    return a, b


def check_device(framework, a, b, added, combined, sums):
    """The device cases' results against NumPy: +, lin_comb (fused or not), sums (float)."""
    check(f"{framework} device vector_add", added, a + b)
    check(f"{framework} device lin_comb", combined,
          ALPHA.astype(np.float64) * a + BETA.astype(np.float64) * b, rtol=1e-5, atol=1e-5)
    want = np.sum(a, dtype=np.float64)
    for name, got in sums.items():
        check(f"{framework} device {name}", got, want, rtol=1e-4)


EMPTY_SRC = r'''
extern "C" __global__ void empty4(float *a, float *b, int n, float s)
{
  if (n < 0) a[0] = b[0] * s;
}
'''
DOUBLE_SRC = r'''
extern "C" __global__ void doublify(float *a, int n)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    a[i] *= 2.0f;
}
'''


def pycuda_cases(args, sizes):
    import pycuda.autoinit  # noqa: F401 (creates the context)
    import pycuda.driver as drv
    import pycuda.gpuarray as gpuarray
    from pycuda.compiler import SourceModule
    from pycuda.elementwise import ElementwiseKernel
    from pycuda.reduction import ReductionKernel

    mod = SourceModule(EMPTY_SRC + DOUBLE_SRC, no_extern_c=True)
    empty = mod.get_function("empty4")
    dev = drv.mem_alloc(4096)
    empty.prepare("PPif")
    batch = 1000

    def prepared():
        for _ in range(batch):
            empty.prepared_async_call((1, 1), (32, 1, 1), None, dev, dev, np.int32(1), np.float32(1))
        drv.Context.synchronize()

    def called():
        for _ in range(batch):
            empty(dev, dev, np.int32(1), np.float32(1), block=(32, 1, 1), grid=(1, 1))
        drv.Context.synchronize()

    record("launch", "empty 4 params", "pycuda prepared_async_call", timed(prepared, args.repeats, 1e6 / batch), "us")
    record("launch", "empty 4 params", "pycuda __call__", timed(called, args.repeats, 1e6 / batch), "us")

    doublify = mod.get_function("doublify")
    n = sizes["inout"] // 4
    host = np.random.default_rng(1).random(n, dtype=np.float32)
    work = host.copy()

    def inout():
        doublify(drv.InOut(work), np.int32(n), block=(256, 1, 1), grid=(1024, 1))
    inout()
    check("pycuda inout", work, host * 2)
    record("inout", f"{sizes['inout'] >> 20} MiB pageable", "pycuda drv.InOut", timed(inout, args.repeats, 1e3), "ms")

    n = sizes["vector"]
    rng = np.random.default_rng(2)
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)
    add = ElementwiseKernel("float *a, float *b, float *c", "c[i] = a[i] + b[i]", "vector_add")
    out = {}

    def vector_add():
        ga, gb = gpuarray.to_gpu(a), gpuarray.to_gpu(b)
        gc = gpuarray.empty_like(ga)
        add(ga, gb, gc)
        out["c"] = gc.get()
    vector_add()
    check("pycuda vector_add", out["c"], a + b)
    record("vector_add", f"{n} floats host", "pycuda ElementwiseKernel", timed(vector_add, args.repeats, 1e3), "ms")

    m = rng.random((sizes["matrix"], sizes["matrix"]), dtype=np.float32)
    squares = ReductionKernel(np.float32, neutral="0", reduce_expr="a+b", map_expr="x[i]*x[i]",
                              arguments="float *x")

    def sum_squares():
        out["s"] = squares(gpuarray.to_gpu(m)).get()
    sum_squares()
    check("pycuda sum_squares", out["s"], np.sum(m.astype(np.float64) ** 2), rtol=1e-4)
    record("sum_squares", f"{sizes['matrix']}x{sizes['matrix']} host", "pycuda ReductionKernel", timed(sum_squares, args.repeats, 1e3), "ms")

    # Device-resident: inputs and outputs on the GPU, allocated once.
    n = sizes["device"]
    a, b = device_inputs(n)
    ga, gb = gpuarray.to_gpu(a), gpuarray.to_gpu(b)
    gc = gpuarray.empty_like(ga)
    lin_comb = ElementwiseKernel("float a, float *x, float b, float *y, float *z",
                                 "z[i] = a*x[i] + b*y[i]", "lin_comb")
    total = ReductionKernel(np.float32, neutral="0", reduce_expr="a+b", map_expr="x[i]",
                            arguments="float *x")
    flush = gpuarray.empty(l2_reset_bytes(drv.Context.get_device().get_attribute(
        drv.device_attribute.L2_CACHE_SIZE)), np.uint8)
    events = (drv.Event, lambda start, stop: start.time_till(stop),
              lambda: flush.fill(np.uint8(7)))
    add(ga, gb, gc)
    added = gc.get()
    lin_comb(ALPHA, ga, BETA, gb, gc)
    sums = {"gpuarray.sum": float(gpuarray.sum(ga).get()),
            "ReductionKernel": float(total(ga).get())}
    check_device("pycuda", a, b, added, gc.get(), sums)
    del added
    record("device_ops", f"vector_add {n}", "pycuda ElementwiseKernel",
           gbps_events(lambda: add(ga, gb, gc), args.repeats, 12 * n, *events), "GB/s")
    record("device_ops", f"lin_comb {n}", "pycuda ElementwiseKernel",
           gbps_events(lambda: lin_comb(ALPHA, ga, BETA, gb, gc), args.repeats, 12 * n, *events),
           "GB/s")

    def pycuda_sum():
        out["dev"] = gpuarray.sum(ga)

    def reduction_sum():
        out["dev"] = total(ga)
    record("device_ops", f"sum {n}", "pycuda gpuarray.sum",
           gbps_events(pycuda_sum, args.repeats, 4 * n, *events), "GB/s")
    record("device_ops", f"sum {n}", "pycuda ReductionKernel",
           gbps_events(reduction_sum, args.repeats, 4 * n, *events), "GB/s")


def cupy_cases(args, sizes):
    import cupy as cp

    empty = cp.RawKernel(EMPTY_SRC, "empty4")
    doublify = cp.RawKernel(DOUBLE_SRC, "doublify")
    dev = cp.zeros(1024, dtype=cp.float32)
    batch = 1000

    def launches():
        for _ in range(batch):
            empty((1,), (32,), (dev, dev, np.int32(1), np.float32(1)))
        cp.cuda.Device().synchronize()
    record("launch", "empty 4 params", "cupy RawKernel", timed(launches, args.repeats, 1e6 / batch), "us")

    n = sizes["inout"] // 4
    host = np.random.default_rng(1).random(n, dtype=np.float32)
    out = {}

    def inout():
        d = cp.asarray(host)
        doublify((1024,), (256,), (d, np.int32(n)))
        out["a"] = cp.asnumpy(d)
    inout()
    check("cupy inout", out["a"], host * 2)
    record("inout", f"{sizes['inout'] >> 20} MiB pageable", "cupy asarray/asnumpy", timed(inout, args.repeats, 1e3), "ms")

    n = sizes["vector"]
    rng = np.random.default_rng(2)
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)

    def vector_add():
        out["c"] = cp.asnumpy(cp.asarray(a) + cp.asarray(b))
    vector_add()
    check("cupy vector_add", out["c"], a + b)
    record("vector_add", f"{n} floats host", "cupy a + b", timed(vector_add, args.repeats, 1e3), "ms")
    cp.get_default_memory_pool().free_all_blocks()

    m = rng.random((sizes["matrix"], sizes["matrix"]), dtype=np.float32)

    def sum_squares():
        d = cp.asarray(m)
        out["s"] = float((d * d).sum())
    sum_squares()
    check("cupy sum_squares", out["s"], np.sum(m.astype(np.float64) ** 2), rtol=1e-4)
    record("sum_squares", f"{sizes['matrix']}x{sizes['matrix']} host", "cupy (x*x).sum()", timed(sum_squares, args.repeats, 1e3), "ms")
    cp.get_default_memory_pool().free_all_blocks()

    # Device-resident: inputs and outputs on the GPU (a + b takes its output from CuPy's pool).
    n = sizes["device"]
    a, b = device_inputs(n)
    ga, gb = cp.asarray(a), cp.asarray(b)
    gz = cp.empty_like(ga)
    lin_comb = cp.ElementwiseKernel("float32 a, float32 x, float32 b, float32 y", "float32 z",
                                    "z = a * x + b * y", "lin_comb")
    flush = cp.empty(l2_reset_bytes(cp.cuda.Device().attributes.get("L2CacheSize")), cp.uint8)
    events = (cp.cuda.Event, cp.cuda.get_elapsed_time, lambda: flush.fill(7))
    added = cp.asnumpy(ga + gb)
    lin_comb(ALPHA, ga, BETA, gb, gz)
    check_device("cupy", a, b, added, cp.asnumpy(gz), {"cupy.sum": float(cp.sum(ga))})
    del added

    def add():
        out["dev"] = ga + gb

    def total():
        out["dev"] = cp.sum(ga)
    record("device_ops", f"vector_add {n}", "cupy a + b",
           gbps_events(add, args.repeats, 12 * n, *events), "GB/s")
    record("device_ops", f"lin_comb {n}", "cupy ElementwiseKernel",
           gbps_events(lambda: lin_comb(ALPHA, ga, BETA, gb, gz), args.repeats, 12 * n, *events),
           "GB/s")
    record("device_ops", f"sum {n}", "cupy.sum",
           gbps_events(total, args.repeats, 4 * n, *events), "GB/s")
    out.clear()
    del ga, gb, gz
    cp.get_default_memory_pool().free_all_blocks()


def numba_cases(args, sizes):
    if not hasattr(np, "row_stack"):  # numba-cuda's reduce still calls it; NumPy 2.x dropped it
        np.row_stack = np.vstack
    from numba import cuda, vectorize, float32

    @cuda.jit
    def empty4(a, b, n, s):
        if n < 0:
            a[0] = b[0] * s

    @cuda.jit
    def doublify(a):
        i = cuda.grid(1)
        stride = cuda.gridsize(1)
        while i < a.size:
            a[i] *= 2.0
            i += stride

    dev = cuda.device_array(1024, dtype=np.float32)
    batch = 1000
    configured = empty4[1, 32]

    def launches():
        for _ in range(batch):
            configured(dev, dev, 1, np.float32(1))
        cuda.synchronize()
    record("launch", "empty 4 params", "numba cuda.jit", timed(launches, args.repeats, 1e6 / batch), "us")

    n = sizes["inout"] // 4
    host = np.random.default_rng(1).random(n, dtype=np.float32)
    out = {}

    def inout():
        d = cuda.to_device(host)
        doublify[1024, 256](d)
        out["a"] = d.copy_to_host()
    inout()
    check("numba inout", out["a"], host * 2)
    record("inout", f"{sizes['inout'] >> 20} MiB pageable", "numba to_device/copy_to_host", timed(inout, args.repeats, 1e3), "ms")

    @vectorize([float32(float32, float32)], target="cuda")
    def vector_add(a, b):
        return a + b

    n = sizes["vector"]
    rng = np.random.default_rng(2)
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)

    def run_add():
        out["c"] = vector_add(a, b)
    run_add()
    check("numba vector_add", out["c"], a + b)
    record("vector_add", f"{n} floats host", "numba @vectorize cuda", timed(run_add, args.repeats, 1e3), "ms")

    m = rng.random((sizes["matrix"], sizes["matrix"]), dtype=np.float32).ravel()
    @cuda.reduce
    def sum_reduce(x, y):
        return x + y

    @vectorize([float32(float32)], target="cuda")
    def square(x):
        return x * x

    def sum_squares():
        d = cuda.to_device(m)
        out["s"] = sum_reduce(square(d))
    sum_squares()
    check("numba sum_squares", out["s"], np.sum(m.astype(np.float64) ** 2), rtol=1e-4)
    record("sum_squares", f"{sizes['matrix']}x{sizes['matrix']} host", "numba vectorize + cuda.reduce", timed(sum_squares, args.repeats, 1e3), "ms")

    # Device-resident: @vectorize on device arrays into a device output (out=), cuda.reduce into
    # a device result (res=): nothing crosses to the host while timed.
    @vectorize([float32(float32, float32)], target="cuda")
    def lin_comb(x, y):
        return ALPHA * x + BETA * y

    n = sizes["device"]
    a, b = device_inputs(n)
    da, db = cuda.to_device(a), cuda.to_device(b)
    dc = cuda.device_array_like(da)
    dres = cuda.device_array(1, dtype=np.float32)
    @cuda.jit
    def fill(buf, value):
        i = cuda.grid(1)
        if i < buf.size:
            buf[i] = value
    flush = cuda.device_array(l2_reset_bytes(
        getattr(cuda.get_current_device(), "L2_CACHE_SIZE", 0)), dtype=np.uint8)
    events = (lambda: cuda.event(timing=True), cuda.event_elapsed_time,
              lambda: fill[(flush.size + 255) // 256, 256](flush, 7))
    vector_add(da, db, out=dc)
    added = dc.copy_to_host()
    lin_comb(da, db, out=dc)
    sum_reduce(da, res=dres)
    check_device("numba", a, b, added, dc.copy_to_host(),
                 {"cuda.reduce": float(dres.copy_to_host()[0])})
    del added
    record("device_ops", f"vector_add {n}", "numba @vectorize cuda",
           gbps_events(lambda: vector_add(da, db, out=dc), args.repeats, 12 * n, *events), "GB/s")
    record("device_ops", f"lin_comb {n}", "numba @vectorize cuda",
           gbps_events(lambda: lin_comb(da, db, out=dc), args.repeats, 12 * n, *events), "GB/s")
    record("device_ops", f"sum {n}", "numba cuda.reduce",
           gbps_events(lambda: sum_reduce(da, res=dres), args.repeats, 4 * n, *events), "GB/s")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--csv", help="append rows to this CSV (run_all.sh's format)")
    parser.add_argument("--small", action="store_true", help="small sizes (a quick check)")
    parser.add_argument("--device-n", type=int, default=None,
                        help="floats per array of the device-resident cases (default 64M, "
                             "bench/device_ops's N; 1M with --small)")
    args = parser.parse_args()
    sizes = {"inout": 64 << 20, "vector": 320_000_000, "matrix": 4000, "device": 64 << 20}
    if args.small:
        sizes = {"inout": 1 << 20, "vector": 1_000_000, "matrix": 500, "device": 1 << 20}
    if args.device_n is not None:
        sizes["device"] = args.device_n
    print(f"{'benchmark':<12} {'case':<22} {'variant':<28} {'median':>12} {'p10':>12} {'p90':>12}")
    ran = 0
    for name, cases in (("pycuda", pycuda_cases), ("cupy", cupy_cases), ("numba", numba_cases)):
        try:
            __import__(name)
        except ImportError as e:
            print(f"python_peers: {name}: not installed ({e}): not measured", flush=True)
            continue
        try:
            cases(args, sizes)
            ran += 1
        except SystemExit:
            raise
        except Exception as e:  # no GPU, no driver: reported, not counted
            print(f"python_peers: {name}: skipped: {type(e).__name__}: {e}", flush=True)
    if args.csv and RESULTS:
        with open(args.csv, "a") as f:
            for benchmark, case, variant, samples, unit in RESULTS:
                p10, p50, p90 = percentiles(samples)
                for metric, value in (("median", p50), ("p10", p10), ("p90", p90)):
                    f.write(f"python_{benchmark},{case},{variant},{metric},{value:.4f},{unit}\n")
    if not ran:
        print("python_peers: skipped: no GPU, or none of pycuda, cupy, numba usable")
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
