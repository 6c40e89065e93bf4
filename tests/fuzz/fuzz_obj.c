/* libFuzzer harness: the Wavefront OBJ reader (bytes as "fuzz.obj"). */
#include "fuzz_mesh_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_mesh_file("fuzz.obj", data, size);
    return 0;
}
