# Sourced by the H200 device scripts (scripts/h200*.sh), from the repository root on the device machine, with
# $B = the folder of stripped binaries and their shared libraries: unpacks the Vulkan loader .debs of .gl/,
# points the loader at NVIDIA's ICD, puts $B on the library path and unpacks $B/libwebgpu_wrapper.so.xz
# (docs/h200.md).
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json XDG_RUNTIME_DIR=/tmp HF_HUB_OFFLINE=1
export LD_LIBRARY_PATH=$PWD/$B PYTHONUNBUFFERED=1
[ -f "$B/libwebgpu_wrapper.so" ] || python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" \
  "$B/libwebgpu_wrapper.so.xz" "$B/libwebgpu_wrapper.so"
