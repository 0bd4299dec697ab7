#ifndef TOKENCTL_CCURL_SHIM_H
#define TOKENCTL_CCURL_SHIM_H

#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call:
// one typed wrapper per argument kind.

typedef size_t (*tokenctl_curl_write_callback)(char *data, size_t size, size_t count, void *context);
typedef size_t (*tokenctl_curl_read_callback)(char *buffer, size_t size, size_t count, void *context);
typedef int (*tokenctl_curl_seek_callback)(void *context, curl_off_t offset, int origin);

static inline CURLcode tokenctl_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode tokenctl_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode tokenctl_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode tokenctl_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode tokenctl_curl_setopt_write_function(CURL *handle, CURLoption option, tokenctl_curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode tokenctl_curl_setopt_read_function(CURL *handle, CURLoption option, tokenctl_curl_read_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode tokenctl_curl_setopt_seek_function(CURL *handle, CURLoption option, tokenctl_curl_seek_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode tokenctl_curl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode tokenctl_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode tokenctl_curl_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

#endif
