/* libFuzzer harness: the URDF reader (bytes as "fuzz.urdf"; see fuzz_model_spec.h). */
#include "fuzz_model_spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_model(lucid_model_spec_parse_urdf, "fuzz.urdf", data, size);
    return 0;
}
