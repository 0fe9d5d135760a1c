"""`gplvm predict` from Python: a trained run's predictive mean and variance at given latents.

The plots that decode the latent plane (tools/latent_mosaic.py, the variance background of
tools/plot_run.py) write their latents to a temporary file, run the command (under mpirun for more
than one rank) and read its output back; nothing is written next to the run.
"""

import os
import shutil
import subprocess
import tempfile

import gplvm_run

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class PredictFailed(Exception):
    """gplvm predict exited non-zero; the message holds its error."""


def default_gplvm():
    """The build's executable, else gplvm on PATH."""
    built = os.path.join(REPO, "build", "gplvm")
    return built if os.path.isfile(built) else (shutil.which("gplvm") or "gplvm")


def predict(run_path, latents, gplvm=None, ranks=1, mpirun="mpirun", condition=None):
    """gplvm_run.Predictions of the run at `latents` (n x Q, or n x (Q + 1) on the hyperboloid)."""
    with tempfile.TemporaryDirectory(prefix="gplvm-predict-") as tmp:
        latents_path, output_path = os.path.join(tmp, "latents.h5"), os.path.join(tmp, "predictions.h5")
        gplvm_run.write_latents(latents_path, latents)
        command = [gplvm or default_gplvm(), "predict", "--run", run_path, "--latents", latents_path,
                   "--output", output_path]
        if condition is not None:
            command += ["--condition", str(condition)]
        if ranks > 1:
            command = [mpirun, "-n", str(ranks), "--oversubscribe", *command]
        try:
            result = subprocess.run(command, capture_output=True, text=True)
        except OSError as exc:
            raise PredictFailed(f"cannot run {command[0]}: {exc}") from exc
        if result.returncode != 0:
            message = result.stderr.strip().splitlines()
            raise PredictFailed(f"gplvm predict exited with {result.returncode}: {message[-1] if message else ''}")
        return gplvm_run.load_predictions(output_path)
