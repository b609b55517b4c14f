// Notifications: NotificationCenter turns live batches and tuning progress into notices (see
// models/shell/notices.h), drops the kinds the settings turn off, keeps every notice in the
// status bar's list, and also hands it to a desktop sink while the window is not the active one.
// DesktopNotifier is that sink: the freedesktop notification service over D-Bus
// (org.freedesktop.Notifications.Notify, with an "Open" action that brings the job up), else
// the system tray's message where a tray exists. NotificationButton is the status bar's bell
// with the unread count and the list. GUI thread only.
#pragma once

#include "models/live/live_batch.h"
#include "models/live/tuning_bridge.h"
#include "models/shell/notices.h"

#include <QDBusConnection>
#include <QHash>
#include <QToolButton>

#include <array>
#include <functional>

class QFrame;
class QListView;
class QSystemTrayIcon;

namespace studio::widgets {

class NotificationSink {
public:
    virtual ~NotificationSink() = default;
    // True when the desktop took it.
    virtual bool deliver(const models::Notice& notice) = 0;
};

class DesktopNotifier : public QObject, public NotificationSink {
    Q_OBJECT
public:
    static constexpr const char* kService = "org.freedesktop.Notifications";
    static constexpr const char* kPath = "/org/freedesktop/Notifications";

    explicit DesktopNotifier(QDBusConnection bus = QDBusConnection::sessionBus(),
                             QObject* parent = nullptr);
    bool deliver(const models::Notice& notice) override;

Q_SIGNALS:
    // The user clicked the notification (its "Open" action): "job:<name>" or "tuning:<name>".
    void openRequested(const QString& target);

private Q_SLOTS:
    void actionInvoked(uint id, const QString& action);

private:
    QDBusConnection m_bus;
    QHash<uint, QString> m_targets; // notification id → target
    QSystemTrayIcon* m_tray = nullptr;
};

class NotificationCenter : public QObject {
    Q_OBJECT
public:
    explicit NotificationCenter(QObject* parent = nullptr);

    models::NoticeListModel* list() const { return m_list; }
    // The desktop sink (not owned; null keeps notices in the list only).
    void setSink(NotificationSink* sink) { m_sink = sink; }
    // Whether the window has the focus now (then notices go to the list only).
    void setActiveCheck(std::function<bool()> active) { m_active = std::move(active); }
    void setEnabled(models::NoticeKind kind, bool on);
    bool enabled(models::NoticeKind kind) const;

    void applyBatch(const models::LiveBatch& batch);
    void applyTuning(const models::TuningUpdate& update);
    void post(const models::Notice& notice);

Q_SIGNALS:
    // Every notice that passed the settings; desktop: whether the sink showed it.
    void posted(const studio::models::Notice& notice, bool desktop);

private:
    models::NoticeFeed m_feed;
    models::NoticeListModel* m_list;
    NotificationSink* m_sink = nullptr;
    std::function<bool()> m_active;
    std::array<bool, models::kNoticeKinds> m_enabled{true, true, true};
};

class NotificationButton : public QToolButton {
    Q_OBJECT
public:
    NotificationButton(models::NoticeListModel* list, QWidget* parent = nullptr);
    QListView* view() const { return m_view; }
    void showList();

Q_SIGNALS:
    void openRequested(const QString& target);

private:
    void updateText(int unread);

    models::NoticeListModel* m_list;
    QFrame* m_popup;
    QListView* m_view;
};

} // namespace studio::widgets
