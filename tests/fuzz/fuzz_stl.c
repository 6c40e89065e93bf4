/* libFuzzer harness: the STL reader, ASCII and binary (bytes as "fuzz.stl"), and the
 * format detection by contents (the same bytes as "fuzz", without an extension). */
#include "fuzz_mesh_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_mesh_file("fuzz.stl", data, size);
    fuzz_mesh_file("fuzz", data, size);
    return 0;
}
