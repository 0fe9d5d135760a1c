# gplvm-hpc: the two commands of the quick start, and the steps they are made of.
#   make test   install missing Debian packages, configure, build, run every test (MPI ones too)
#   make demo   install, build and run the main job on an embedded default
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
# Tests run two per core: most of a test's time is spent starting processes (mpirun, MPI_Init,
# the CLI), not computing; at one per core the suite kept under half the cores busy.
TEST_JOBS ?= $(shell echo $$((2 * $$(nproc))))
CMAKE_FLAGS ?=

.PHONY: all deps configure build test test-generic test-blas demo format clean

all: build

deps:
	bash scripts/install-deps.sh

configure: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	cd $(BUILD_DIR) && OPENBLAS_NUM_THREADS=1 ctest --output-on-failure -j $(TEST_JOBS)

demo: build
	bash scripts/demo.sh $(BUILD_DIR)

format:
	find src include tests bench -name '*.cpp' -o -name '*.hpp' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR)

# The linear-algebra and model tests again in a build for a generic x86-64 (no -march=native, so no
# AVX-512) with Eigen's own product (GPLVM_GEMM=eigen). Not part of CI: each extra build compiles
# the whole library again, and test-blas below already covers a generic x86-64.
test-generic: deps
	cmake -S . -B build-generic -DCMAKE_BUILD_TYPE=Release -DGPLVM_NATIVE=OFF -DGPLVM_GEMM=eigen -DGPLVM_BUILD_BENCH=OFF
	cmake --build build-generic -j $(JOBS) --target test_linalg test_model test_objectives
	cd build-generic && OPENBLAS_NUM_THREADS=1 ctest --output-on-failure -j $(TEST_JOBS) -R '^(linalg|model|objectives)\.'

# The same layers once more for a generic x86-64 (no -march=native) with every product through
# OpenBLAS (GPLVM_GEMM=blas): what a native build gives on a CPU without AVX-512, and the engine
# users with a faster vendor BLAS select: the products and gradients (linalg, model, objectives) and
# the distributed step and training at 1-4 ranks. The main build covers the packed AVX-512 engine
# (or this one, on a CPU without AVX-512). The models and train binaries are left out: 43 more test
# files to compile for tests of the same products. They link the layers up to train (and synthetic,
# which one objective test draws its data from), so the layers above (eval, geometry, run, apps) are
# not compiled again.
BLAS_TESTS = test_linalg test_model test_objectives test_distributed_sas_terms test_distributed_training
test-blas: deps
	cmake -S . -B build-blas -DCMAKE_BUILD_TYPE=Release -DGPLVM_NATIVE=OFF -DGPLVM_GEMM=blas -DGPLVM_BUILD_BENCH=OFF \
	  -DGPLVM_TEST_LIBRARIES="gplvm_train;gplvm_synthetic"
	cmake --build build-blas -j $(JOBS) --target $(BLAS_TESTS)
	cd build-blas && OPENBLAS_NUM_THREADS=1 ctest --output-on-failure -j $(TEST_JOBS) -R '^(linalg|model|objectives)\.|^mpi\.test_distributed_(sas_terms|training)\.np[1-4]$$'
