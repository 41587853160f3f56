/* Calls of the C API with an enum-typed argument holding a value outside its enumerators, made
 * from C, where converting any int to an enum type is well defined (a C++ caller cannot make
 * them without undefined behaviour of its own). test_api_misuse checks the library's answers. */
#include "swinup/swinup.h"

swinup_status render_size_with_raw_mode(int mode, uint32_t display_width, uint32_t display_height,
                                        uint32_t* render_width, uint32_t* render_height) {
    return swinup_get_render_size((swinup_quality_mode)mode, display_width, display_height, render_width,
                                  render_height);
}

const char* status_name_of_raw(int status) { return swinup_status_name((swinup_status)status); }
