#include <webp/decode.h>
#include <webp/demux.h>
