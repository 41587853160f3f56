// Fuzzes the glTF loader with .glb (binary) files; gltf_scene.h says what is checked.
#include "gltf_scene.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    swinup::fuzz::load_gltf_scene("scene.glb", data, size);
    return 0;
}
