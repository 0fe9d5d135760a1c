"""The table of faults and bad inputs: each case breaks one thing and names what the error must say.

Fields: group, name, args (the gplvm command line; {fx} is the folder of fixture files), the expected
exit code, the strings stderr must contain (the culprit: option, key, value, file), the ranks (1: the
binary alone, 2: under mpirun), files to create in the case's folder first (None: a folder), fixtures to copy there
(inputs a failing case could overwrite), extra environment, and
xfail: the reason when the case waits on a fix made elsewhere (reported, never a suite failure).
"""
from dataclasses import dataclass, field

BAD_INPUT, FAILURE = 2, 1


@dataclass
class Case:
    group: str
    name: str
    args: str
    code: int
    names: list
    ranks: int = 1
    files: dict = field(default_factory=dict)
    copies: list = field(default_factory=list)  # fixture files copied into the case's folder
    env: dict = field(default_factory=dict)
    xfail: str = ""


def option(command, opt, value, names=None, base="", ranks=1):
    """A numeric option given a bad value: the error names the option and the value."""
    args = f"{command} {base} --{opt} {value}".replace("  ", " ")
    return Case("cli", f"{command} --{opt} {value}", args, BAD_INPUT, names or [f"--{opt}", f"'{value}'"], ranks)


RUN = "--run {fx}/run.h5"
EVALUATE = f"{RUN} --test {{fx}}/test.h5"
GENERATE = "--kind gp --output out.h5"
IMPORT = "--input {fx}/good.csv --output out.h5"
TRAIN = "train --config {fx}/config.toml"

CLI = [
    # exact: the observed `exact --block abc` left only "error on rank 1: stoi" and exit 1.
    option("exact", "block", "abc", base=RUN),
    option("exact", "block", "abc", base=RUN, ranks=2),
    option("exact", "block", "64x", base=RUN),
    option("exact", "block", "-1", base=RUN),
    option("exact", "block", "2.5", base=RUN, names=["--block", "fractional"]),
    option("exact", "block", "0", base=RUN, names=["--block", "out of range"]),
    option("exact", "block", "99999999999999999999", base=RUN, names=["--block", "out of range"]),
    option("exact", "grid", "1x2junk", base=RUN),
    option("exact", "grid", "2x", base=RUN),
    option("exact", "grid", "0x2", base=RUN),
    option("exact", "grid", "-1x2", base=RUN),
    option("exact", "samples", "-1", base=RUN),
    option("exact", "samples", "1.5", base=RUN, names=["--samples", "fractional"]),
    option("exact", "seed", "-1", base=RUN, names=["--seed", "'-1'", "without a sign"]),
    option("exact", "seed", "18446744073709551616", base=RUN, names=["--seed", "out of range"]),
    # evaluate: `--condition 1e3x` conditioned on one point, `--condition -3` wrapped to all rows.
    option("evaluate", "condition", "1e3x", base=EVALUATE),
    option("evaluate", "condition", "-3", base=EVALUATE),
    option("evaluate", "condition", "-3", base=EVALUATE, ranks=2),
    option("evaluate", "condition", "2.5", base=EVALUATE, names=["--condition", "fractional"]),
    option("evaluate", "k", "2.5", base=EVALUATE, names=["--k", "fractional"]),
    option("evaluate", "k", "0", base=EVALUATE),
    option("evaluate", "k", "three", base=EVALUATE),
    option("evaluate", "seed", "-1", base=EVALUATE),
    option("evaluate", "block", "64x", base=EVALUATE),
    # generate
    option("generate", "n", "abc", base=GENERATE),
    option("generate", "n", "-5", base=GENERATE),
    option("generate", "n", "2.5", base=GENERATE, names=["--n", "fractional"]),
    option("generate", "n", "1e99", base=GENERATE, names=["--n", "out of range"]),
    option("generate", "d", "0", base=GENERATE),
    option("generate", "q", "2q", base=GENERATE),
    option("generate", "seed", "-1", base=GENERATE),
    option("generate", "noise", "nan", base=GENERATE),
    option("generate", "noise", "-0.1", base=GENERATE),
    option("generate", "lengthscale", "0", base=GENERATE),
    option("generate", "lengthscale", "inf", base=GENERATE),
    option("generate", "depth", "21", base="--kind tree --output out.h5"),
    option("generate", "per-leaf", "1.5", base="--kind tree --output out.h5"),
    # import --scale: 1/0, nan, inf and 2junk wrote infinite or NaN data and exited 0.
    option("import", "scale", "1/0", base=IMPORT),
    option("import", "scale", "nan", base=IMPORT),
    option("import", "scale", "inf", base=IMPORT),
    option("import", "scale", "2junk", base=IMPORT),
    option("import", "scale", "0", base=IMPORT, names=["--scale", "non-zero"]),
    option("import", "scale", "1/2/3", base=IMPORT),
    # Missing values and unknown options.
    Case("cli", "exact --block without a value", "exact --run {fx}/run.h5 --block", BAD_INPUT,
         ["--block", "needs a value"]),
    Case("cli", "train --config without a value", "train --config", BAD_INPUT, ["--config", "needs a value"]),
    Case("cli", "exact unknown option", "exact --run {fx}/run.h5 --blok 4", BAD_INPUT, ["--blok", "unknown option"]),
    Case("cli", "info unknown option", "info --rows 4 {fx}/data.h5", BAD_INPUT, ["--rows", "unknown option"]),
    Case("cli", "unknown command", "trian", BAD_INPUT, ["trian", "unknown command"]),
    Case("cli", "evaluate without --test", f"evaluate {RUN}", BAD_INPUT, ["--test"]),
    # Config overrides on the command line go through the same parser.
    Case("cli", "train --train.seed=-1", f"{TRAIN} --train.seed=-1", BAD_INPUT, ["train.seed", "'-1'"]),
    Case("cli", "train --train.seed=-1 at 2 ranks", f"{TRAIN} --train.seed=-1", BAD_INPUT, ["train.seed", "'-1'"],
         ranks=2),
    Case("cli", "train --sas.batch_size=abc", f"{TRAIN} --sas.batch_size=abc", BAD_INPUT,
         ["sas.batch_size", "'abc'", "command line"]),
    Case("cli", "train --train.epochs=2.5", f"{TRAIN} --train.epochs=2.5", BAD_INPUT, ["train.epochs", "'2.5'"]),
    Case("cli", "train --train.seed overflow", f"{TRAIN} --train.seed=99999999999999999999", BAD_INPUT,
         ["train.seed", "99999999999999999999"]),
    Case("cli", "train --train.learning_rate=1e-3x", f"{TRAIN} --train.learning_rate=1e-3x", BAD_INPUT,
         ["train.learning_rate", "'1e-3x'"]),
    Case("cli", "train --model.latent_dim=0", f"{TRAIN} --model.latent_dim=0", BAD_INPUT, ["model.latent_dim", "0"]),
    Case("cli", "train unknown override key", f"{TRAIN} --train.sead=3", BAD_INPUT, ["train.sead", "train.seed"]),
]

CONFIG = [
    Case("config", "missing config file", "train --config absent.toml", BAD_INPUT, ["absent.toml"]),
    Case("config", "TOML syntax error", "train --config bad.toml", BAD_INPUT, ["bad.toml", "line 3"],
         files={"bad.toml": '[data]\npath = "{fx}/data.h5"\nlr = = 0.1\n'}),
    Case("config", "unknown key", "train --config bad.toml", BAD_INPUT, ["sas.batchsize", "sas.batch_size"],
         files={"bad.toml": '[data]\npath = "{fx}/data.h5"\n[sas]\nbatchsize = 16\n'}),
    Case("config", "wrong type", "train --config bad.toml", BAD_INPUT, ["sas.batch_size", "big", "bad.toml"],
         files={"bad.toml": '[data]\npath = "{fx}/data.h5"\n[sas]\nbatch_size = "big"\n'}),
    Case("config", "fractional integer", "train --config bad.toml", BAD_INPUT, ["train.epochs", "2.5"],
         files={"bad.toml": '[data]\npath = "{fx}/data.h5"\n[train]\nepochs = 2.5\n'}),
    Case("config", "out of range", "train --config bad.toml", BAD_INPUT, ["model.latent_dim", "100"],
         files={"bad.toml": '[data]\npath = "{fx}/data.h5"\n[model]\nlatent_dim = 100\n'}),
    Case("config", "negative learning rate", "train --config bad.toml", BAD_INPUT, ["train.learning_rate", "-0.1"],
         files={"bad.toml": '[data]\npath = "{fx}/data.h5"\n[train]\nlearning_rate = -0.1\n'}),
    Case("config", "active_size >= batch_size", f"{TRAIN} --sas.batch_size=16 --sas.active_size=16", BAD_INPUT,
         ["sas.active_size", "'16 with B = 16'"]),
    Case("config", "exact.block_size beyond an int", f"{TRAIN} --model.kind=exact --exact.block_size=99999999999",
         BAD_INPUT, ["exact.block_size", "99999999999"]),
    Case("config", "unknown model.kind", f"{TRAIN} --model.kind=gplvm3", BAD_INPUT, ["model.kind", "gplvm3"]),
    Case("config", "train.reproducible with the exact GPLVM", f"{TRAIN} --model.kind=exact --train.reproducible=true",
         BAD_INPUT, ["train.reproducible", "exact", "ScaLAPACK"]),
    Case("config", "train.reproducible with ProbDR", f"{TRAIN} --model.kind=probdr --train.reproducible=true",
         BAD_INPUT, ["train.reproducible", "probdr", "SLEPc"]),
    Case("config", "embed --train.reproducible", "embed --method le --data {fx}/data.h5 --output out.h5 "
         "--train.reproducible=true", BAD_INPUT, ["train.reproducible", "probdr", "SLEPc"]),
    Case("config", "missing data.path", "train --config bad.toml", BAD_INPUT, ["data.path"],
         files={"bad.toml": "[train]\nepochs = 1\n"}),
    Case("config", "config is a directory", "train --config {fx}/a_directory.h5", BAD_INPUT, ["a_directory.h5"]),
]

DATA = [
    # A labels dataset named by the user must exist (it was silently ignored).
    Case("data", "train: data.labels names no dataset", f"{TRAIN} --data.labels=/nope", BAD_INPUT,
         ["data.h5", "/nope", "not found"]),
    Case("data", "train: data file missing", f"{TRAIN} --data.path=absent.h5", BAD_INPUT, ["absent.h5"]),
    Case("data", "train: data not HDF5", f"{TRAIN} --data.path={{fx}}/not_hdf5.h5", BAD_INPUT, ["not_hdf5.h5"]),
    Case("data", "train: no /Y", f"{TRAIN} --data.path={{fx}}/no_y.h5", BAD_INPUT, ["no_y.h5", "/Y"]),
    Case("data", "train: another dataset missing", f"{TRAIN} --data.dataset=/Z", BAD_INPUT, ["/Z"]),
    Case("data", "train: /Y is 1-D", f"{TRAIN} --data.path={{fx}}/rank1.h5", BAD_INPUT, ["rank1.h5", "/Y"]),
    Case("data", "train: /Y is 3-D", f"{TRAIN} --data.path={{fx}}/rank3.h5", BAD_INPUT, ["rank3.h5", "/Y"]),
    Case("data", "train: NaN value", f"{TRAIN} --data.path={{fx}}/nan.h5", BAD_INPUT, ["nan.h5", "row 41"]),
    Case("data", "train: NaN value at 2 ranks", f"{TRAIN} --data.path={{fx}}/nan.h5", BAD_INPUT, ["nan.h5", "row 41"],
         ranks=2),
    Case("data", "train: Inf value", f"{TRAIN} --data.path={{fx}}/inf.h5", BAD_INPUT, ["inf.h5", "row 3"]),
    Case("data", "train: empty /Y", f"{TRAIN} --data.path={{fx}}/empty.h5", BAD_INPUT, ["empty.h5"]),
    Case("data", "train: batch larger than N", f"{TRAIN} --sas.batch_size=100", BAD_INPUT, ["sas.batch_size"]),
    Case("data", "encode: NaN value", f"encode {RUN} --data {{fx}}/nan.h5 --output out.h5", BAD_INPUT,
         ["nan.h5", "row 41"], ranks=2),
    Case("data", "encode: D mismatch", f"encode {RUN} --data {{fx}}/d3.h5 --output out.h5", BAD_INPUT, ["d3.h5"]),
    Case("data", "evaluate: D mismatch", f"evaluate {RUN} --test {{fx}}/d3.h5", BAD_INPUT, ["d3.h5"]),
    Case("data", "evaluate: test file missing", f"evaluate {RUN} --test absent.h5", BAD_INPUT, ["absent.h5"]),
    Case("data", "embedding-metrics: latents of size 1e300", "embedding-metrics --latents {fx}/huge_latents.h5 "
         "--data {fx}/data.h5", BAD_INPUT, ["huge_latents.h5", "/latent/mean", "overflow"]),
    Case("data", "exact: training data gone", "exact --run {fx}/orphan_run.h5", BAD_INPUT, ["gone.h5"]),
    Case("data", "info: not HDF5", "info {fx}/not_hdf5.h5", BAD_INPUT, ["not_hdf5.h5"]),
    Case("data", "train: truncated data file", f"{TRAIN} --data.path={{fx}}/truncated.h5", BAD_INPUT,
         ["truncated.h5"]),
]

IMPORT_CASES = [
    Case("import", "CSV ragged row", "import --input {fx}/ragged.csv --output out.h5", BAD_INPUT,
         ["ragged.csv", "line 3", "2 columns"]),
    Case("import", "CSV non-numeric cell", "import --input {fx}/non_numeric.csv --output out.h5", BAD_INPUT,
         ["non_numeric.csv", "'five'", "line 2"]),
    Case("import", "CSV NaN cell", "import --input {fx}/nan_cell.csv --output out.h5", BAD_INPUT,
         ["nan_cell.csv", "row 1"]),
    Case("import", "CSV empty file", "import --input {fx}/empty.csv --output out.h5", BAD_INPUT, ["empty.csv"]),
    Case("import", "CSV header only", "import --input {fx}/header_only.csv --output out.h5", BAD_INPUT,
         ["header_only.csv", "no data rows"]),
    Case("import", "CSV label column out of range",
         "import --input {fx}/good.csv --output out.h5 --csv-label-column 99", BAD_INPUT, ["good.csv", "99"]),
    Case("import", "CSV label column overflow",
         "import --input {fx}/good.csv --output out.h5 --csv-label-column 99999999999999999999999", BAD_INPUT,
         ["good.csv", "99999999999999999999999"]),
    Case("import", "NPY shorter than its header", "import --input {fx}/short.npy --output out.h5", BAD_INPUT,
         ["short.npy"]),
    Case("import", "IDX shorter than its header", "import --input {fx}/short.idx --output out.h5", BAD_INPUT,
         ["short.idx"]),
    Case("import", "IDX of zero rows names the input", "import --input {fx}/zero_rows.idx --output out.h5",
         BAD_INPUT, ["zero_rows.idx", "no data", "0 x 4 x 4"]),
    Case("import", "NPY 1-D data", "import --input {fx}/vector.npy --output out.h5", BAD_INPUT,
         ["vector.npy", "2 dimensions"]),
    Case("import", "kendall: 3-D landmarks", "import --input {fx}/landmarks3d.npy --output-space kendall "
         "--output out.h5", BAD_INPUT, ["landmarks3d.npy", "4 x 3", "6 x 2"]),
    Case("import", "sphere data as float32", "import --input {fx}/good.csv --output-space sphere --float32 "
         "--output out.h5", BAD_INPUT, ["--float32", "sphere"]),
    Case("import", "input missing", "import --input absent.csv --output out.h5", BAD_INPUT, ["absent.csv"]),
    Case("import", "unknown format", "import --input {fx}/good.csv --output out.h5 --format xls", BAD_INPUT,
         ["format", "'xls'"]),
    Case("import", "bad --csv-header", "import --input {fx}/good.csv --output out.h5 --csv-header maybe", BAD_INPUT,
         ["--csv-header", "maybe"]),
    Case("import", "scale overflows to Inf", "import --input {fx}/good.csv --output out.h5 --scale 1e308",
         BAD_INPUT, ["good.csv", "non-finite"]),
    Case("import", "scale overflows float32", "import --input {fx}/good.csv --output out.h5 --scale 1e38 --float32",
         BAD_INPUT, ["good.csv", "float32"]),
    Case("import", "--scale junk at 2 ranks", "import --input {fx}/good.csv --output out.h5 --scale 2junk",
         BAD_INPUT, ["--scale", "'2junk'"], ranks=2),
]

RUNS = [
    Case("runs", "encode: run file missing", "encode --run absent.h5 --data {fx}/data.h5 --output out.h5",
         BAD_INPUT, ["absent.h5"]),
    Case("runs", "encode: run file missing at 2 ranks", "encode --run absent.h5 --data {fx}/data.h5 --output out.h5",
         BAD_INPUT, ["absent.h5"], ranks=2),
    Case("runs", "encode: a data file as the run", "encode --run {fx}/data.h5 --data {fx}/data.h5 --output out.h5",
         BAD_INPUT, ["data.h5"]),
    Case("runs", "encode: run not HDF5", "encode --run {fx}/not_hdf5.h5 --data {fx}/data.h5 --output out.h5",
         BAD_INPUT, ["not_hdf5.h5"]),
    Case("runs", "encode: free latents, --infer-steps junk",
         "encode --run {fx}/free_run.h5 --data {fx}/data.h5 --output out.h5 --infer-steps 5x", BAD_INPUT,
         ["infer-steps", "5x"]),
    Case("runs", "evaluate: free latents, negative --infer-steps",
         "evaluate --run {fx}/free_run.h5 --test {fx}/test.h5 --infer-steps -1", BAD_INPUT, ["infer-steps", "-1"]),
    Case("runs", "evaluate: a data file as the run", "evaluate --run {fx}/data.h5 --test {fx}/test.h5", BAD_INPUT,
         ["data.h5"]),
    Case("runs", "exact: VAE run (no GP decoder)", "exact --run {fx}/vae_run.h5", BAD_INPUT, ["vae_run.h5", "vae"]),
    Case("runs", "exact: run file missing", "exact --run absent.h5", BAD_INPUT, ["absent.h5"]),
    Case("runs", "exact: latents file without /latent/mean", "exact --run {fx}/run.h5 --latents {fx}/data.h5",
         BAD_INPUT, ["data.h5", "/latent/mean"]),
    Case("runs", "info: file missing", "info absent.h5", BAD_INPUT, ["absent.h5"]),
    Case("runs", "info: two files", "info {fx}/data.h5 {fx}/run.h5", BAD_INPUT, ["exactly one file"]),
    Case("runs", "train --resume missing checkpoint", f"{TRAIN} --resume absent.h5", BAD_INPUT, ["absent.h5"]),
    Case("runs", "train --resume a data file", f"{TRAIN} --resume {{fx}}/data.h5", BAD_INPUT, ["data.h5"]),
    Case("runs", "train --resume not HDF5", f"{TRAIN} --resume {{fx}}/not_hdf5.h5", BAD_INPUT, ["not_hdf5.h5"]),
    # --force replaces an output, never an input: the checkpoint resumed from is one.
    Case("runs", "train --resume CK --output.path=CK --force",
         f"{TRAIN} --resume checkpoint.h5 --output.path=checkpoint.h5 --force", BAD_INPUT,
         ["checkpoint.h5", "--resume", "output.path"], copies=["checkpoint.h5"]),
    Case("runs", "exact: truncated run file", "exact --run {fx}/truncated.h5", BAD_INPUT, ["truncated.h5"]),
]

OUTPUT = [
    Case("output", "generate: output directory missing", "generate --kind gp --n 10 --output nodir/out.h5",
         BAD_INPUT, ["nodir"]),
    Case("output", "generate: output is a directory", "generate --kind gp --n 10 --output a_directory.h5",
         BAD_INPUT, ["a_directory.h5"], files={"a_directory.h5": None}),
    Case("output", "encode: output directory missing",
         "encode --run {fx}/run.h5 --data {fx}/data.h5 --output nodir/out.h5", BAD_INPUT, ["nodir"], ranks=2),
    Case("output", "evaluate: output directory missing",
         "evaluate --run {fx}/run.h5 --test {fx}/test.h5 --output nodir/out.h5", BAD_INPUT, ["nodir"]),
    Case("output", "import: output directory missing", "import --input {fx}/good.csv --output nodir/out.h5",
         BAD_INPUT, ["nodir"]),
    Case("output", "train: output path is a directory", f"{TRAIN} --output.path=a_directory.h5", BAD_INPUT,
         ["a_directory.h5"], files={"a_directory.h5": None}),
    Case("output", "encode: output is the input data", "encode --run {fx}/run.h5 --data data.h5 --output data.h5",
         BAD_INPUT, ["data.h5"], copies=["data.h5"]),
    Case("output", "import: output is the input", "import --input good.csv --output good.csv", BAD_INPUT,
         ["good.csv"], copies=["good.csv"]),
]

# A damaged object header in one input: every rank fails alike, with the documented exit code and
# one message naming the file and the object (it aborted the job with exit 1).
DAMAGED = [
    Case("damaged", f"train: damaged /Y{at}", f"{TRAIN} --data.path={{fx}}/damaged_y.h5", BAD_INPUT,
         ["damaged_y.h5", "/Y"], ranks=ranks)
    for ranks, at in ((1, ""), (2, " at 2 ranks"))
] + [
    Case("damaged", f"train: damaged /labels{at}", f"{TRAIN} --data.path={{fx}}/damaged_labels.h5", BAD_INPUT,
         ["damaged_labels.h5", "/labels"], ranks=ranks)
    for ranks, at in ((1, ""), (2, " at 2 ranks"))
] + [
    Case("damaged", f"encode: damaged /params/shared{at}",
         "encode --run {fx}/damaged_shared_run.h5 --data {fx}/data.h5 --output out.h5", BAD_INPUT,
         ["damaged_shared_run.h5", "/params/shared"], ranks=ranks)
    for ranks, at in ((1, ""), (2, " at 2 ranks"))
] + [
    Case("damaged", f"exact: damaged /latent/mean{at}", "exact --run {fx}/damaged_latent_run.h5", BAD_INPUT,
         ["damaged_latent_run.h5", "/latent/mean"], ranks=ranks)
    for ranks, at in ((1, ""), (2, " at 2 ranks"))
] + [
    Case("damaged", f"train --resume: damaged /state/shared{at}", f"{TRAIN} --resume {{fx}}/damaged_checkpoint.h5",
         BAD_INPUT, ["damaged_checkpoint.h5", "/state/shared"], ranks=ranks)
    for ranks, at in ((1, ""), (2, " at 2 ranks"))
] + [
    Case("damaged", "info: damaged /Y", "info {fx}/damaged_y.h5", BAD_INPUT, ["damaged_y.h5", "/Y"]),
]

FAULTS = [
    Case("faults", "OMP_NUM_THREADS not a number", "info {fx}/data.h5", BAD_INPUT, ["OMP_NUM_THREADS", "two"],
         env={"OMP_NUM_THREADS": "two"}),
    Case("faults", "OMP_NUM_THREADS zero", "info {fx}/data.h5", BAD_INPUT, ["OMP_NUM_THREADS", "0"],
         env={"OMP_NUM_THREADS": "0"}),
    Case("faults", "OMP_NUM_THREADS trailing junk", "info {fx}/data.h5", BAD_INPUT, ["OMP_NUM_THREADS", "4x"],
         env={"OMP_NUM_THREADS": "4x"}),
    Case("faults", "OMP_NUM_THREADS too many", "info {fx}/data.h5", BAD_INPUT, ["OMP_NUM_THREADS", "5000"],
         env={"OMP_NUM_THREADS": "5000"}),
    Case("faults", "exact: more grid processes than ranks", "exact --run {fx}/run.h5 --grid 2x2", BAD_INPUT,
         ["grid", "'2x2'", "4 ranks"], ranks=2),
]

CASES = CLI + CONFIG + DATA + IMPORT_CASES + RUNS + OUTPUT + DAMAGED + FAULTS
GROUPS = ["cli", "config", "data", "import", "runs", "output", "damaged", "faults"]
