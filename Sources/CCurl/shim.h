#ifndef TOKENCTL_CCURL_SHIM_H
#define TOKENCTL_CCURL_SHIM_H

#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>

// libcurl is loaded when the first transfer is set up, not when tokenctl starts: a command
// that sends nothing (wallet, audit, --version) does not pay for libcurl and the thirty
// libraries it links (TLS, LDAP, SASL, Kerberos...), most of a cold start's symbol binding.
// Swift calls the tokenctl_curl_* functions below; each calls libcurl through the table.
// Every module importing this header keeps its own table, filled once; dlopen hands all
// of them the same library.

struct tokenctl_curl_api {
    CURLcode (*global_init)(long flags);
    char *(*version)(void);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *handle);
    void (*easy_reset)(CURL *handle);
    const char *(*easy_strerror)(CURLcode code);
    CURLcode (*easy_setopt)(CURL *handle, CURLoption option, ...);
    CURLcode (*easy_getinfo)(CURL *handle, CURLINFO info, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *text);
    void (*slist_free_all)(struct curl_slist *list);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_cleanup)(CURLM *multi);
    CURLMcode (*multi_add_handle)(CURLM *multi, CURL *handle);
    CURLMcode (*multi_remove_handle)(CURLM *multi, CURL *handle);
    CURLMcode (*multi_perform)(CURLM *multi, int *running);
    CURLMcode (*multi_poll)(CURLM *multi, struct curl_waitfd *extra, unsigned int count, int timeout, int *ready);
    CURLMsg *(*multi_info_read)(CURLM *multi, int *queued);
    CURLMcode (*multi_wakeup)(CURLM *multi);
    CURLMcode (*multi_setopt)(CURLM *multi, CURLMoption option, ...);
    bool loaded;
};

static inline void tokenctl_curl_fill(struct tokenctl_curl_api *t) {
    // Lazy: libcurl's thirty libraries bind their functions on first call instead of all at
    // load (what it saves: Benchmarks/README.md, Measured shapes). The functions used here
    // are looked up with dlsym below, so a missing one still fails the load.
    void *library = dlopen("libcurl.so.4", RTLD_LAZY | RTLD_LOCAL);
    if (!library) return;
#define TOKENCTL_CURL_BIND(field, name) if (!(*(void **)&t->field = dlsym(library, name))) return;
    TOKENCTL_CURL_BIND(global_init, "curl_global_init")
    TOKENCTL_CURL_BIND(version, "curl_version")
    TOKENCTL_CURL_BIND(easy_init, "curl_easy_init")
    TOKENCTL_CURL_BIND(easy_cleanup, "curl_easy_cleanup")
    TOKENCTL_CURL_BIND(easy_reset, "curl_easy_reset")
    TOKENCTL_CURL_BIND(easy_strerror, "curl_easy_strerror")
    TOKENCTL_CURL_BIND(easy_setopt, "curl_easy_setopt")
    TOKENCTL_CURL_BIND(easy_getinfo, "curl_easy_getinfo")
    TOKENCTL_CURL_BIND(slist_append, "curl_slist_append")
    TOKENCTL_CURL_BIND(slist_free_all, "curl_slist_free_all")
    TOKENCTL_CURL_BIND(multi_init, "curl_multi_init")
    TOKENCTL_CURL_BIND(multi_cleanup, "curl_multi_cleanup")
    TOKENCTL_CURL_BIND(multi_add_handle, "curl_multi_add_handle")
    TOKENCTL_CURL_BIND(multi_remove_handle, "curl_multi_remove_handle")
    TOKENCTL_CURL_BIND(multi_perform, "curl_multi_perform")
    TOKENCTL_CURL_BIND(multi_poll, "curl_multi_poll")
    TOKENCTL_CURL_BIND(multi_info_read, "curl_multi_info_read")
    TOKENCTL_CURL_BIND(multi_wakeup, "curl_multi_wakeup")
    TOKENCTL_CURL_BIND(multi_setopt, "curl_multi_setopt")
#undef TOKENCTL_CURL_BIND
    t->global_init(CURL_GLOBAL_DEFAULT);
    t->loaded = true;
}

/// The table, filled on the first call. (A header's file-scope statics are not emitted
/// for Swift; a function's are, with the function.)
static inline struct tokenctl_curl_api *tokenctl_curl(void) {
    static struct tokenctl_curl_api table;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static int tried;
    if (!__atomic_load_n(&tried, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&lock);
        if (!tried) {
            tokenctl_curl_fill(&table);
            __atomic_store_n(&tried, 1, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&lock);
    }
    return &table;
}

/// Loads libcurl (once) and initialises it; false when libcurl cannot be loaded. Every
/// other function here may be called only after this answered true.
static inline bool tokenctl_curl_load(void) {
    return tokenctl_curl()->loaded;
}

/// libcurl's version line, or NULL when it cannot be loaded.
static inline const char *tokenctl_curl_version(void) {
    return tokenctl_curl_load() ? tokenctl_curl()->version() : NULL;
}

static inline CURL *tokenctl_curl_easy_init(void) { return tokenctl_curl()->easy_init(); }
static inline void tokenctl_curl_easy_cleanup(CURL *handle) { tokenctl_curl()->easy_cleanup(handle); }
static inline void tokenctl_curl_easy_reset(CURL *handle) { tokenctl_curl()->easy_reset(handle); }
static inline const char *tokenctl_curl_easy_strerror(CURLcode code) { return tokenctl_curl()->easy_strerror(code); }
static inline struct curl_slist *tokenctl_curl_slist_append(struct curl_slist *list, const char *text) { return tokenctl_curl()->slist_append(list, text); }
static inline void tokenctl_curl_slist_free_all(struct curl_slist *list) { tokenctl_curl()->slist_free_all(list); }
static inline CURLM *tokenctl_curl_multi_init(void) { return tokenctl_curl()->multi_init(); }
static inline CURLMcode tokenctl_curl_multi_cleanup(CURLM *multi) { return tokenctl_curl()->multi_cleanup(multi); }
static inline CURLMcode tokenctl_curl_multi_add_handle(CURLM *multi, CURL *handle) { return tokenctl_curl()->multi_add_handle(multi, handle); }
static inline CURLMcode tokenctl_curl_multi_remove_handle(CURLM *multi, CURL *handle) { return tokenctl_curl()->multi_remove_handle(multi, handle); }
static inline CURLMcode tokenctl_curl_multi_perform(CURLM *multi, int *running) { return tokenctl_curl()->multi_perform(multi, running); }
static inline CURLMcode tokenctl_curl_multi_poll(CURLM *multi, struct curl_waitfd *extra, unsigned int count, int timeout, int *ready) {
    return tokenctl_curl()->multi_poll(multi, extra, count, timeout, ready);
}
static inline CURLMsg *tokenctl_curl_multi_info_read(CURLM *multi, int *queued) { return tokenctl_curl()->multi_info_read(multi, queued); }
static inline CURLMcode tokenctl_curl_multi_wakeup(CURLM *multi) { return tokenctl_curl()->multi_wakeup(multi); }
static inline CURLMcode tokenctl_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return tokenctl_curl()->multi_setopt(multi, option, value);
}

// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, which Swift cannot call:
// one typed wrapper per argument kind.

typedef size_t (*tokenctl_curl_write_callback)(char *data, size_t size, size_t count, void *context);
typedef size_t (*tokenctl_curl_read_callback)(char *buffer, size_t size, size_t count, void *context);
typedef int (*tokenctl_curl_seek_callback)(void *context, curl_off_t offset, int origin);

static inline CURLcode tokenctl_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return tokenctl_curl()->easy_setopt(handle, option, value);
}

static inline CURLcode tokenctl_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return tokenctl_curl()->easy_setopt(handle, option, value);
}

static inline CURLcode tokenctl_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return tokenctl_curl()->easy_setopt(handle, option, value);
}

static inline CURLcode tokenctl_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return tokenctl_curl()->easy_setopt(handle, option, value);
}

static inline CURLcode tokenctl_curl_setopt_write_function(CURL *handle, CURLoption option, tokenctl_curl_write_callback value) {
    return tokenctl_curl()->easy_setopt(handle, option, value);
}

static inline CURLcode tokenctl_curl_setopt_read_function(CURL *handle, CURLoption option, tokenctl_curl_read_callback value) {
    return tokenctl_curl()->easy_setopt(handle, option, value);
}

static inline CURLcode tokenctl_curl_setopt_seek_function(CURL *handle, CURLoption option, tokenctl_curl_seek_callback value) {
    return tokenctl_curl()->easy_setopt(handle, option, value);
}

static inline CURLcode tokenctl_curl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return tokenctl_curl()->easy_setopt(handle, option, value);
}

static inline CURLcode tokenctl_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return tokenctl_curl()->easy_getinfo(handle, info, value);
}

static inline CURLcode tokenctl_curl_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return tokenctl_curl()->easy_getinfo(handle, info, value);
}

#endif
