// Only the C shim in CFocalVips includes libvips; this module exists to carry pkg-config's flags.
#include <vips/vips.h>
