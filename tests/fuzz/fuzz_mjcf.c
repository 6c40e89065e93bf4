/* libFuzzer harness: the MJCF reader (bytes as "fuzz.xml"; see fuzz_model_spec.h). */
#include "fuzz_model_spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_model(lucid_model_spec_parse_mjcf, "fuzz.xml", data, size);
    return 0;
}
