#include "launcher/imds_poller.h"

#include <algorithm>
#include <chrono>
#include <dlfcn.h>
#include <sys/eventfd.h>
#include <unistd.h>

#ifdef STUDIO_WITH_CURL
#include <curl/curl.h>
#endif

namespace studio::launcher {

namespace {

#ifdef STUDIO_WITH_CURL
// libcurl, loaded by the first poll rather than linked: linking it made every launcher start
// load its 30-odd libraries (5 to 6 ms here, four times bash's whole start-up) before the first
// rank was spawned, for the few jobs that poll IMDS. Loaded once, never unloaded.
struct Curl {
    decltype(&curl_easy_init) init = nullptr;
    decltype(&curl_easy_setopt) setopt = nullptr;
    decltype(&curl_easy_perform) perform = nullptr;
    decltype(&curl_easy_getinfo) getinfo = nullptr;
    decltype(&curl_easy_strerror) errorText = nullptr;
    decltype(&curl_easy_cleanup) cleanup = nullptr;
    decltype(&curl_slist_append) slistAppend = nullptr;
    decltype(&curl_slist_free_all) slistFree = nullptr;
    std::string error; // why it could not be loaded; empty when it was
};

template <typename F>
void bindSymbol(void* lib, F& f, const char* name, std::string& error) {
    f = reinterpret_cast<F>(::dlsym(lib, name));
    if (!f && error.empty())
        error = std::string("libcurl has no ") + name;
}

Curl loadCurl() {
    Curl c;
    void* lib = nullptr;
    for (const char* name : {"libcurl.so.4", "libcurl-gnutls.so.4"})
        if ((lib = ::dlopen(name, RTLD_NOW | RTLD_LOCAL)))
            break;
    if (!lib) {
        const char* why = ::dlerror();
        c.error = std::string("cannot load libcurl: ") + (why ? why : "libcurl.so.4 not found");
        return c;
    }
    bindSymbol(lib, c.init, "curl_easy_init", c.error);
    bindSymbol(lib, c.setopt, "curl_easy_setopt", c.error);
    bindSymbol(lib, c.perform, "curl_easy_perform", c.error);
    bindSymbol(lib, c.getinfo, "curl_easy_getinfo", c.error);
    bindSymbol(lib, c.errorText, "curl_easy_strerror", c.error);
    bindSymbol(lib, c.cleanup, "curl_easy_cleanup", c.error);
    bindSymbol(lib, c.slistAppend, "curl_slist_append", c.error);
    bindSymbol(lib, c.slistFree, "curl_slist_free_all", c.error);
    return c;
}

const Curl& curlLibrary() {
    static const Curl curl = loadCurl();
    return curl;
}

struct HttpResult {
    bool reached = false; // false: no HTTP answer (connection refused, timeout, ...)
    long status = 0;
    std::string body;
    std::string error;
};

std::size_t appendBody(char* data, std::size_t size, std::size_t n, void* out) {
    static_cast<std::string*>(out)->append(data, size * n);
    return size * n;
}

int abortCheck(void* flag, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    return static_cast<std::atomic<bool>*>(flag)->load() ? 1 : 0;
}

// One request; IMDS is link-local, so short timeouts (a launcher must not wait on it to exit).
HttpResult request(const Curl& c, const std::string& url, bool put, const std::string& header,
                   std::atomic<bool>& abort) {
    HttpResult r;
    CURL* curl = c.init();
    if (!curl) {
        r.error = "curl_easy_init failed";
        return r;
    }
    curl_slist* headers = c.slistAppend(nullptr, header.c_str());
    c.setopt(curl, CURLOPT_URL, url.c_str());
    c.setopt(curl, CURLOPT_HTTPHEADER, headers);
    if (put)
        c.setopt(curl, CURLOPT_CUSTOMREQUEST, "PUT");
    c.setopt(curl, CURLOPT_NOSIGNAL, 1L);
    c.setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 250L);
    c.setopt(curl, CURLOPT_TIMEOUT_MS, 1000L);
    c.setopt(curl, CURLOPT_NOPROXY, "*");
    c.setopt(curl, CURLOPT_WRITEFUNCTION, appendBody);
    c.setopt(curl, CURLOPT_WRITEDATA, &r.body);
    c.setopt(curl, CURLOPT_NOPROGRESS, 0L);
    c.setopt(curl, CURLOPT_XFERINFOFUNCTION, abortCheck);
    c.setopt(curl, CURLOPT_XFERINFODATA, &abort);
    const CURLcode rc = c.perform(curl);
    if (rc == CURLE_OK) {
        r.reached = true;
        c.getinfo(curl, CURLINFO_RESPONSE_CODE, &r.status);
    } else {
        r.error = c.errorText(rc);
    }
    c.slistFree(headers);
    c.cleanup(curl);
    return r;
}
#endif

} // namespace

ImdsPoller::ImdsPoller(std::string endpoint, double intervalSeconds)
    : m_endpoint(std::move(endpoint))
    , m_interval(intervalSeconds)
    , m_wake(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    while (!m_endpoint.empty() && m_endpoint.back() == '/')
        m_endpoint.pop_back();
    m_thread = std::thread([this] { loop(); });
}

ImdsPoller::~ImdsPoller() {
    {
        std::lock_guard lock(m_mutex);
        m_quit = true;
    }
    m_abort = true;
    m_changed.notify_all();
    m_thread.join();
}

std::optional<std::string> ImdsPoller::takeNotice() {
    std::lock_guard lock(m_mutex);
    return std::exchange(m_notice, std::nullopt);
}

std::optional<std::string> ImdsPoller::takeDisabledReason() {
    std::lock_guard lock(m_mutex);
    return std::exchange(m_disabled, std::nullopt);
}

void ImdsPoller::loop() {
    auto signal = [this] {
        std::uint64_t one = 1;
        (void)!::write(m_wake.get(), &one, sizeof one);
    };
#ifdef STUDIO_WITH_CURL
    const Curl& curl = curlLibrary();
    if (!curl.error.empty()) {
        std::lock_guard lock(m_mutex);
        m_disabled = curl.error + ": spot notices from " + m_endpoint + " are off";
        signal();
        return;
    }
    std::string token;
    bool answered = false; // the endpoint has answered once: later failures are retried
    int failures = 0;      // in a row, for the back-off
    while (true) {
        std::string failure;
        if (token.empty()) {
            HttpResult t = request(curl, m_endpoint + "/latest/api/token", true,
                                   "X-aws-ec2-metadata-token-ttl-seconds: 21600", m_abort);
            answered = answered || t.reached;
            if (t.reached && t.status == 200 && !t.body.empty())
                token = t.body;
            else
                failure =
                    t.reached ? "token request answered HTTP " + std::to_string(t.status) : t.error;
        }
        if (!token.empty()) {
            HttpResult a = request(curl, m_endpoint + "/latest/meta-data/spot/instance-action",
                                   false, "X-aws-ec2-metadata-token: " + token, m_abort);
            answered = answered || a.reached;
            if (a.reached && a.status == 200) {
                std::lock_guard lock(m_mutex);
                m_notice = a.body;
                signal();
                return; // one notice ends this node's attempt
            }
            if (a.reached && a.status == 401)
                token.clear(); // expired: a new one next time
            else if (!a.reached)
                failure = a.error;
        }
        std::unique_lock lock(m_mutex);
        if (m_quit)
            return;
        if (!failure.empty() && !answered) { // nothing there at all
            m_disabled = "instance metadata endpoint " + m_endpoint +
                         " not usable, spot notices from it are off: " + failure;
            signal();
            return;
        }
        failures = failure.empty() ? 0 : std::min(failures + 1, 8);
        if (failures > 0)
            token.clear();
        // A failure that follows answers is a glitch: retry, backing off up to 30 s.
        const double wait =
            failures == 0 ? m_interval : std::min(30.0, m_interval * double(1 << failures));
        m_changed.wait_for(lock, std::chrono::duration<double>(wait), [this] { return m_quit; });
        if (m_quit)
            return;
    }
#else
    std::lock_guard lock(m_mutex);
    m_disabled = "this studio-launcher was built without libcurl: spot notices from " + m_endpoint +
                 " are off";
    signal();
#endif
}

} // namespace studio::launcher
