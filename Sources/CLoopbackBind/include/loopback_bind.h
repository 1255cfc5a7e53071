#ifndef BLERIG_LOOPBACK_BIND_H
#define BLERIG_LOOPBACK_BIND_H

/// Present so the library can be recognised; the library's work is its bind(2), which LD_PRELOAD puts in front
/// of the C library's.
int blerig_loopback_bind_marker(void);

#endif
