// The launcher's IMDSv2 poll against the local stand-in: token first, 404 is no notice, a
// posted notice arrives once, and an endpoint that does not answer turns the poll off.
#include "launcher/imds_poller.h"
#include "tests/integration/imds_standin.h"

#include <QtTest>

#include <chrono>
#include <poll.h>

using namespace studio;

namespace {
// Waits for the poller's fd; false on timeout.
bool readable(const launcher::ImdsPoller& p, int ms) {
    pollfd f{p.fd(), POLLIN, 0};
    return ::poll(&f, 1, ms) > 0;
}
} // namespace

class TestImdsPoller : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void noticeArrivesOnce() {
        ImdsStandIn imds;
        launcher::ImdsPoller poller(imds.endpoint(), 0.1);
        QTRY_VERIFY_WITH_TIMEOUT(imds.actionRequests() >= 2, 5000); // polling, 404 so far
        QVERIFY(!readable(poller, 0));
        QVERIFY(!poller.takeNotice());
        QVERIFY(imds.tokenRequests() >= 1);
        imds.postNotice();
        QVERIFY(readable(poller, 5000));
        auto notice = poller.takeNotice();
        QVERIFY(notice);
        QVERIFY(notice->find("\"terminate\"") != std::string::npos);
        QVERIFY(!poller.takeNotice());
        QVERIFY(!poller.takeDisabledReason());
        QCOMPARE(imds.noticesServed(), 1);
    }

    // Before: one failed request turned notices off for the rest of the attempt.
    void aFailedRequestIsRetried() {
        ImdsStandIn imds;
        launcher::ImdsPoller poller(imds.endpoint(), 0.1);
        QTRY_VERIFY_WITH_TIMEOUT(imds.actionRequests() >= 1, 5000);
        imds.dropNext(3);
        QTRY_VERIFY_WITH_TIMEOUT(imds.dropped() == 3, 10000);
        imds.postNotice();
        QVERIFY(readable(poller, 10000));
        QVERIFY(!poller.takeDisabledReason());
        QVERIFY(poller.takeNotice());
    }

    void unreachableEndpointTurnsThePollOff() {
        int port;
        {
            ImdsStandIn closed; // a port that was just free, now closed again
            port = std::stoi(closed.endpoint().substr(closed.endpoint().rfind(':') + 1));
        }
        // A refused connection turns the poll off at once; the bound only tells "off" from "still
        // retrying", it is no performance goal.
        launcher::ImdsPoller poller("http://127.0.0.1:" + std::to_string(port), 5);
        QVERIFY(readable(poller, 30000));
        auto off = poller.takeDisabledReason();
        QVERIFY(off);
        QVERIFY2(off->find("127.0.0.1") != std::string::npos, off->c_str());
        QVERIFY(!poller.takeNotice());
    }

    void destructionDoesNotWaitForTheInterval() {
        ImdsStandIn imds;
        const auto start = std::chrono::steady_clock::now();
        {
            launcher::ImdsPoller poller(imds.endpoint(), 60);
            QTRY_VERIFY_WITH_TIMEOUT(imds.actionRequests() >= 1, 5000);
        }
        // Waiting out the 60 s interval would take twice this bound: it tells the two apart on
        // a busy machine too.
        QVERIFY(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
    }
};

QTEST_GUILESS_MAIN(TestImdsPoller)
#include "test_imds_poller.moc"
