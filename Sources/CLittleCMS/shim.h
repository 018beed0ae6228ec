#ifndef SEGUE_CLITTLECMS_SHIM_H
#define SEGUE_CLITTLECMS_SHIM_H
#include <lcms2.h>
#endif
