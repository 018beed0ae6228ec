#ifndef SEGUE_CHEIF_SHIM_H
#define SEGUE_CHEIF_SHIM_H
#include <libheif/heif.h>
#endif
