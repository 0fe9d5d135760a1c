#!/usr/bin/python3
"""Test tools/plot_run.py end to end: fake run files in a temporary directory, the script run as a subprocess.

Plain asserts, no pytest: run with /usr/bin/python3 tests/tools/test_plot_run.py; exits non-zero on failure.
"""

import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO, "tools", "plot_run.py")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def write_run(path, n=500, q=3, steps=300, labels=True, curve=True, var=True):
    rng = np.random.default_rng(1)
    with h5py.File(path, "w") as f:
        f["/latent/mean"] = rng.standard_normal((n, q))
        if var:
            f["/latent/var"] = np.full((n, q), 0.1)
        if curve:
            step = np.arange(steps, dtype=float)
            f["/train/curve"] = np.column_stack(
                [step, step // 50, 100 * np.exp(-step / 80) + rng.standard_normal(steps), 0.01 * step]
            )
        if labels:
            f["/labels"] = rng.integers(0, 4, size=n)


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, timeout=300)


def assert_png(path, min_bytes=5000):
    assert os.path.isfile(path), f"missing {path}"
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == PNG_SIGNATURE, f"{path} is not a PNG"
    width, height = int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    assert width >= 200 and height >= 200, f"{path} is only {width} x {height}"
    assert os.path.getsize(path) >= min_bytes, f"{path} is only {os.path.getsize(path)} bytes"


def test_writes_both_plots(tmp):
    path = os.path.join(tmp, "run.h5")
    write_run(path)
    out = os.path.join(tmp, "plots")
    result = run(path, "--out-dir", out)
    assert result.returncode == 0, result.stderr
    assert_png(os.path.join(out, "latents.png"))
    assert_png(os.path.join(out, "curve.png"))


def test_default_out_dir_and_many_labels(tmp):
    path = os.path.join(tmp, "big.h5")
    write_run(path, n=20000, labels=False, var=False)
    with h5py.File(path, "a") as f:
        f["/labels"] = np.arange(20000) % 50  # more classes than a legend can show: colourbar
    result = run(path)
    assert result.returncode == 0, result.stderr
    assert_png(os.path.join(tmp, "big_plots", "latents.png"))
    assert_png(os.path.join(tmp, "big_plots", "curve.png"))


def test_labels_from_data_file_and_one_latent_dim(tmp):
    path, data = os.path.join(tmp, "q1.h5"), os.path.join(tmp, "data.h5")
    write_run(path, q=1, labels=False)
    with h5py.File(data, "w") as f:
        f["/Y"] = np.zeros((500, 2))
        f["/classes"] = np.arange(500) % 3
    out = os.path.join(tmp, "q1_plots")
    result = run(path, "--data", data, "--labels-path", "/classes", "--out-dir", out)
    assert result.returncode == 0, result.stderr
    assert_png(os.path.join(out, "latents.png"))


def test_empty_curve_still_plots(tmp):
    path = os.path.join(tmp, "empty_curve.h5")
    write_run(path, steps=0)
    result = run(path, "--out-dir", os.path.join(tmp, "empty"))
    assert result.returncode == 0, result.stderr
    assert_png(os.path.join(tmp, "empty", "curve.png"), min_bytes=1000)


def expect_exit_2(args, *fragments):
    result = run(*args)
    assert result.returncode == 2, f"{args}: exit {result.returncode}, stderr: {result.stderr}"
    for fragment in fragments:
        assert fragment in result.stderr, f"{args}: '{fragment}' not in stderr: {result.stderr}"


def test_input_errors_exit_2(tmp):
    no_curve = os.path.join(tmp, "no_curve.h5")
    write_run(no_curve, curve=False)
    no_latents = os.path.join(tmp, "no_latents.h5")
    with h5py.File(no_latents, "w") as f:
        f["/train/curve"] = np.zeros((3, 4))
    expect_exit_2([no_latents, "--out-dir", os.path.join(tmp, "x")], "/latent/mean")
    assert not os.path.exists(os.path.join(tmp, "x", "curve.png")), "wrote a plot before failing"

    expect_exit_2([os.path.join(tmp, "absent.h5")], "not found")
    not_hdf5 = os.path.join(tmp, "text.h5")
    with open(not_hdf5, "w") as f:
        f.write("not hdf5")
    expect_exit_2([not_hdf5], "HDF5")

    good = os.path.join(tmp, "good.h5")
    write_run(good, labels=False)
    out = ["--out-dir", os.path.join(tmp, "y")]
    expect_exit_2([good, "--labels-path", "/nope", *out], "/nope")
    expect_exit_2([good, "--data", os.path.join(tmp, "absent_data.h5"), *out], "data file not found")
    expect_exit_2([good, "--data", no_curve, "--labels-path", "/missing", *out], "/missing")
    expect_exit_2([good, "--dims", "0", "5", *out], "--dims")
    short = os.path.join(tmp, "short_labels.h5")
    with h5py.File(short, "w") as f:
        f["/labels"] = np.arange(10)
    expect_exit_2([good, "--data", short, *out], "10 entries")
    bad_curve = os.path.join(tmp, "bad_curve.h5")
    write_run(bad_curve, curve=False)
    with h5py.File(bad_curve, "a") as f:
        f["/train/curve"] = np.zeros((5, 2))
    expect_exit_2([bad_curve, *out], "M x 4")


def write_encode_output(path, run_path, n=300, q=3):
    """The layout gplvm encode writes: latents (and variances), labels, and the run and data file as attributes."""
    rng = np.random.default_rng(2)
    with h5py.File(path, "w") as f:
        f["/latent/mean"] = rng.standard_normal((n, q))
        f["/latent/var"] = np.full((n, q), 0.02)
        f["/labels"] = np.arange(n) % 10
        f.attrs["run"] = run_path
        f.attrs["data_file"] = "/data/fashion_mnist_test.h5"


def test_encode_output_without_curve(tmp):
    run_path, encoded = os.path.join(tmp, "run.h5"), os.path.join(tmp, "encoded.h5")
    write_run(run_path, q=3)
    with h5py.File(run_path, "a") as f:
        f["/params/kernel/lengthscales"] = np.array([2.0, 0.3, 0.7])
    write_encode_output(encoded, run_path)
    out = os.path.join(tmp, "enc_plots")
    # The fake run has a kernel but no parameters gplvm predict can load (or there is no gplvm here): the
    # variance background is then left out with a warning, not an error.
    result = run(encoded, "--out-dir", out, "--gplvm", os.path.join(tmp, "no_gplvm_here"))
    assert result.returncode == 0, result.stderr
    assert "without its variance background" in result.stderr, result.stderr
    assert_png(os.path.join(out, "latents.png"))
    assert not os.path.exists(os.path.join(out, "curve.png")), "an encode output has no training curve to plot"
    data = os.path.join(tmp, "plain.h5")
    with h5py.File(data, "w") as f:
        f["/latent/mean"] = np.zeros((5, 2))
    expect_exit_2([data, "--out-dir", out, "--background", "variance"], "needs a run with a GP decoder")


def test_generated_and_imported_data_files(tmp):
    generated, imported = os.path.join(tmp, "generated.h5"), os.path.join(tmp, "imported.h5")
    rng = np.random.default_rng(3)
    with h5py.File(generated, "w") as f:
        f["/Y"] = rng.standard_normal((200, 6))
        f["/latent_true"] = rng.standard_normal((200, 2))
        f["/labels"] = np.arange(200) % 4
    with h5py.File(imported, "w") as f:
        f["/Y"] = rng.standard_normal((200, 6)).astype(np.float32)
        f["/labels"] = np.arange(200) % 10
    for path in (generated, imported):
        out = path + "_plots"
        result = run(path, "--out-dir", out)
        assert result.returncode == 0, result.stderr
        assert_png(os.path.join(out, "latents.png"))


def load_module():
    sys.dont_write_bytecode = True  # no __pycache__ left in tools/
    sys.path.insert(0, os.path.dirname(SCRIPT))
    try:
        import plot_run  # noqa: E402 - the script as a module, for its helpers
    finally:
        sys.path.pop(0)
    return plot_run


def test_lengthscales_of_the_run_or_of_the_run_an_encoding_names(tmp):
    plot_run = load_module()
    run_path, encoded = os.path.join(tmp, "run.h5"), os.path.join(tmp, "encoded.h5")
    write_run(run_path, q=4)
    with h5py.File(run_path, "a") as f:
        f["/params/kernel/lengthscales"] = np.array([2.0, 0.9, 5.0, 0.1])
    write_encode_output(encoded, run_path, q=4)
    for path in (run_path, encoded):  # the run's own kernel, or the kernel of the run an encoding names
        with h5py.File(path, "r") as f:
            lengthscales = plot_run.read_lengthscales(f, 4)
            assert plot_run.decoder_run(f) == run_path
        assert lengthscales is not None and np.allclose(lengthscales, [2.0, 0.9, 5.0, 0.1]), (path, lengthscales)


def test_class_names_from_the_data_files_attribute(tmp):
    import label_names  # noqa: E402 - on the path load_module() set

    load_module()
    data, named_run = os.path.join(tmp, "fashion_data.h5"), os.path.join(tmp, "run.h5")
    names = ["zero", "one", "two"]
    with h5py.File(data, "w") as f:
        f["/Y"] = np.zeros((30, 2))
        f["/labels"] = np.arange(30) % 3
        f["/labels"].attrs["names"] = names
    write_run(named_run, n=30)
    with h5py.File(named_run, "a") as f:
        f.attrs["data_file"] = data  # as gplvm train writes it: the data file, absolute
    labels = np.arange(30) % 3
    with h5py.File(named_run, "r") as f:  # the run's labels carry no names: they come from its data file
        assert label_names.class_names(f, labels, "auto") == tuple(names)
        assert label_names.class_names(f, labels, "none") is None
        assert label_names.class_names(f, labels + 5, "auto") is None, "names that do not cover the labels"
        assert label_names.class_names(f, labels, "fashion_mnist")[2] == "Pullover"
    unnamed = os.path.join(tmp, "fashion_mnist_run.h5")  # a file name is no source of names
    write_run(unnamed, n=30)
    with h5py.File(unnamed, "r") as f:
        assert label_names.class_names(f, labels, "auto") is None
    result = run(named_run, "--out-dir", os.path.join(tmp, "named"))
    assert result.returncode == 0, result.stderr
    assert_png(os.path.join(tmp, "named", "latents.png"))


def write_full_batch_run(path, iterations=400):
    """An exact run's curve: L-BFGS climbing from -1e6 to about 1500, most of it in the first iterations."""
    with h5py.File(path, "w") as f:
        f["/latent/mean"] = np.random.default_rng(4).standard_normal((100, 2))
        i = np.arange(iterations, dtype=float)
        objective = 1500.0 - 1e6 * np.exp(-i / 3.0) - 50.0 * np.exp(-i / 100.0)
        f["/train/curve"] = np.column_stack([i, np.zeros_like(i), objective, 0.01 * i])
        f.attrs["model"] = "exact"


def test_full_batch_curves_and_convergence_notes(tmp):
    load_module()
    import plot_curve  # noqa: E402 - on the path load_module() set

    assert plot_curve.full_batch({"model": "exact"}, "")
    assert plot_curve.full_batch({"model": "sparse_gplvm"}, '[sparse]\ntraining = "full_batch"\n')
    assert not plot_curve.full_batch({"model": "sparse_gplvm"}, '[sparse]\ntraining = "minibatch"\n')
    assert not plot_curve.full_batch({"model": "sas"}, "")
    # Minibatch runs record whether the stopping rule ended them; full-batch runs record no verdict.
    assert "not converged" in plot_curve.unconverged_note({"model": "sas", "converged": 0, "steps": 2000}, False)
    assert "2000 steps" in plot_curve.unconverged_note({"model": "sas", "converged": 0, "steps": 2000}, False)
    assert plot_curve.unconverged_note({"model": "sas", "converged": 1}, False) is None
    assert plot_curve.unconverged_note({"model": "exact", "converged": 0}, True) is None
    assert plot_curve.unconverged_note({}, False) is None, "a data file is no run"
    path = os.path.join(tmp, "exact.h5")
    write_full_batch_run(path)
    with h5py.File(path, "r") as f:
        objective = f["/train/curve"][:, 2]
    start, (low, high) = plot_curve.full_batch_ylim(objective)
    assert start == 39 and high > objective.max() and low < objective[start], (start, low, high)
    assert high - low < 100, f"the first iterations' -1e6 squash the axis: {low} .. {high}"
    result = run(path, "--out-dir", os.path.join(tmp, "plots"))
    assert result.returncode == 0, result.stderr
    assert_png(os.path.join(tmp, "plots", "curve.png"))


def write_lorentz_run(path, poincare, labels):
    """A run whose latents are the hyperboloid points of the given Poincare-disk points (inverse lift)."""
    r2 = np.sum(poincare**2, axis=1, keepdims=True)
    lorentz = np.hstack([(1 + r2) / (1 - r2), 2 * poincare / (1 - r2)])
    with h5py.File(path, "w") as f:
        f["/latent/mean"] = lorentz
        f["/latent/mean"].attrs["latent_space"] = "lorentz"
        f["/latent/var"] = np.full((poincare.shape[0], 2), 0.05)
        f["/labels"] = labels


def test_lorentz_latents_on_the_poincare_disk(tmp):
    plot_run = load_module()
    rng = np.random.default_rng(3)
    radius, angle = np.sqrt(rng.uniform(0, 0.95**2, 300)), rng.uniform(0, 2 * np.pi, 300)
    poincare = np.column_stack([radius * np.cos(angle), radius * np.sin(angle)])
    path = os.path.join(tmp, "lorentz.h5")
    write_lorentz_run(path, poincare, rng.integers(0, 5, 300))
    with h5py.File(path, "r") as f:
        mean, var, what = plot_run.read_latents(f)
    assert what == "Poincare" and var is None, what
    assert np.max(np.abs(mean - poincare)) < 1e-12, np.max(np.abs(mean - poincare))
    out = os.path.join(tmp, "plots")
    result = run(path, "--out-dir", out)
    assert result.returncode == 0, result.stderr
    assert_png(os.path.join(out, "latents.png"))
    # Rows marked lorentz that are not on the upper sheet are an input error.
    with h5py.File(path, "a") as f:
        f["/latent/mean"][0, 0] = -2.0
    expect_exit_2([path, "--out-dir", out], "not on the hyperboloid")


def test_help(tmp):
    result = run("--help")
    assert result.returncode == 0 and "--labels-path" in result.stdout and "--out-dir" in result.stdout


def main():
    tests = [
        test_writes_both_plots,
        test_default_out_dir_and_many_labels,
        test_labels_from_data_file_and_one_latent_dim,
        test_empty_curve_still_plots,
        test_input_errors_exit_2,
        test_encode_output_without_curve,
        test_generated_and_imported_data_files,
        test_lengthscales_of_the_run_or_of_the_run_an_encoding_names,
        test_class_names_from_the_data_files_attribute,
        test_full_batch_curves_and_convergence_notes,
        test_lorentz_latents_on_the_poincare_disk,
        test_help,
    ]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, test in enumerate(tests):
            sub = os.path.join(tmp, str(i))  # each test gets its own directory
            os.makedirs(sub)
            try:
                test(sub)
                print(f"ok    {test.__name__}")
            except AssertionError as exc:
                failures += 1
                print(f"FAIL  {test.__name__}: {exc}")
    print(f"{failures} failure(s)" if failures else "all plot_run.py tests passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
