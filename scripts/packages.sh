# Sourced by the scripts that build: the Debian 12 packages of the build and
# swinup_install_packages, which installs those of a list that are missing (apt-get, through
# sudo when not root).

swinup_build_packages=(
  build-essential cmake ninja-build pkg-config  # pkg-config: tests/package
  libopenexr-dev libimath-dev   # sequences: OpenEXR frames (colour, depth, motion, ground truth)
  libpng-dev                    # pictures people look at
  nlohmann-json3-dev            # sequence.json, weights headers, reports
  libcli11-dev                  # the swinup command line
  libtinygltf-dev libstb-dev    # glTF 2.0 scenes and their PNG/JPEG textures
  libtbb-dev                    # the CPU backend's and renderer's threads
  libgtest-dev libgmock-dev     # tests
  libbenchmark-dev              # benchmarks
  libvulkan-dev glslang-tools   # the Vulkan backend: loader and headers; shaders compiled at build time
  mesa-vulkan-drivers           # lavapipe, the CPU Vulkan device tests/vulkan runs on without a GPU
  vulkan-validationlayers       # VK_LAYER_KHRONOS_validation, on in every Vulkan test
)

# scripts/python_tests.sh: the PyTorch reference (Debian's CPU torch), g++ for the check against
# the C++ headers, and OpenEXR to write the files its EXR reader is tested on; python3-venv,
# python3-setuptools and python3-wheel install python/ as a package (python/pyproject.toml) into a
# virtual environment that sees Debian's torch and numpy (python/README.md, "Set-up").
swinup_python_packages=(python3 python3-torch python3-numpy g++ pkg-config libopenexr-dev
                        python3-venv python3-setuptools python3-wheel)

# scripts/sanitize.sh and scripts/fuzz.sh: clang 14 with its sanitizer and libFuzzer runtimes,
# and llvm-symbolizer, which turns the reports' addresses into file:line.
swinup_clang_packages=(clang libclang-rt-14-dev llvm)

swinup_install_packages() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "swinup: installing ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
}
