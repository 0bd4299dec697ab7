#ifndef TOKENCTL_CSQLITE_SHIM_H
#define TOKENCTL_CSQLITE_SHIM_H

// SQLite's process-wide settings: sqlite3_config is variadic, which Swift cannot call.
#include <sqlite3.h>

// Turns off SQLite's memory statistics. With them on (the library's default), every
// allocation and free inside SQLite takes one global mutex. Effective only before the first
// connection opens (SQLITE_MISUSE afterwards, which changes nothing).
static inline int tokenctl_sqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

#endif
