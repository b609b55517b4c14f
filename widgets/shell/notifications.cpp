#include "widgets/shell/notifications.h"

#include <QApplication>
#include <QDBusConnectionInterface>
#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <QDateTime>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QListView>
#include <QPushButton>
#include <QStyle>
#include <QSystemTrayIcon>
#include <QVBoxLayout>

namespace studio::widgets {

DesktopNotifier::DesktopNotifier(QDBusConnection bus, QObject* parent)
    : QObject(parent)
    , m_bus(std::move(bus)) {
    if (m_bus.isConnected())
        m_bus.connect(QString::fromLatin1(kService), QString::fromLatin1(kPath),
                      QString::fromLatin1(kService), QStringLiteral("ActionInvoked"), this,
                      SLOT(actionInvoked(uint, QString)));
}

bool DesktopNotifier::deliver(const models::Notice& notice) {
    const QString service = QString::fromLatin1(kService);
    // Running now, or started by the bus on the first call (a D-Bus activatable daemon).
    const auto* bus = m_bus.isConnected() ? m_bus.interface() : nullptr;
    if (bus && (bus->isServiceRegistered(service).value() ||
                bus->activatableServiceNames().value().contains(service))) {
        QDBusMessage call = QDBusMessage::createMethodCall(service, QString::fromLatin1(kPath),
                                                           service, QStringLiteral("Notify"));
        QVariantMap hints;
        hints.insert(QStringLiteral("urgency"),
                     QVariant::fromValue(static_cast<uchar>(notice.urgent() ? 2 : 1)));
        hints.insert(QStringLiteral("desktop-entry"), QStringLiteral("mlstudio"));
        call << QStringLiteral("ML Studio") << uint(0) << QStringLiteral("mlstudio") << notice.title
             << notice.body << QStringList{QStringLiteral("default"), tr("Open")} << hints
             << int(-1);
        auto* watcher = new QDBusPendingCallWatcher(m_bus.asyncCall(call), this);
        const QString target = notice.target;
        connect(watcher, &QDBusPendingCallWatcher::finished, this,
                [this, target](QDBusPendingCallWatcher* w) {
                    const QDBusPendingReply<uint> reply = *w;
                    if (reply.isValid())
                        m_targets.insert(reply.value(), target);
                    w->deleteLater();
                });
        return true;
    }
    if (QSystemTrayIcon::isSystemTrayAvailable()) {
        if (!m_tray) {
            m_tray = new QSystemTrayIcon(QApplication::windowIcon(), this);
            m_tray->show();
        }
        m_tray->showMessage(notice.title, notice.body,
                            notice.urgent() ? QSystemTrayIcon::Critical
                                            : QSystemTrayIcon::Information);
        return true;
    }
    return false;
}

void DesktopNotifier::actionInvoked(uint id, const QString& action) {
    const auto it = m_targets.constFind(id);
    if (it == m_targets.cend())
        return; // another program's notification
    if (action == QLatin1String("default"))
        Q_EMIT openRequested(*it);
}

NotificationCenter::NotificationCenter(QObject* parent)
    : QObject(parent)
    , m_list(new models::NoticeListModel(this)) {
}

void NotificationCenter::setEnabled(models::NoticeKind kind, bool on) {
    m_enabled[static_cast<std::size_t>(kind)] = on;
}

bool NotificationCenter::enabled(models::NoticeKind kind) const {
    return m_enabled[static_cast<std::size_t>(kind)];
}

void NotificationCenter::applyBatch(const models::LiveBatch& batch) {
    if (batch.statuses.isEmpty() && batch.notifications.isEmpty())
        return;
    for (const models::Notice& n : m_feed.fromBatch(batch))
        post(n);
}

void NotificationCenter::applyTuning(const models::TuningUpdate& u) {
    const double now = static_cast<double>(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
    if (auto n = m_feed.fromTuning(u.name, u.best, u.bestJob, now))
        post(*n);
}

void NotificationCenter::post(const models::Notice& notice) {
    if (!enabled(notice.kind))
        return;
    m_list->add(notice);
    const bool active = m_active ? m_active() : false;
    const bool desktop = !active && m_sink && m_sink->deliver(notice);
    Q_EMIT posted(notice, desktop);
}

NotificationButton::NotificationButton(models::NoticeListModel* list, QWidget* parent)
    : QToolButton(parent)
    , m_list(list)
    , m_popup(new QFrame(this, Qt::Popup)) {
    setObjectName(QStringLiteral("notificationButton"));
    setAutoRaise(true);
    setIcon(style()->standardIcon(QStyle::SP_MessageBoxInformation));
    setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    setToolTip(tr("Notifications"));
    m_popup->setObjectName(QStringLiteral("notificationList"));
    m_popup->setFrameShape(QFrame::StyledPanel);
    auto* v = new QVBoxLayout(m_popup);
    v->setContentsMargins(6, 6, 6, 6);
    auto* head = new QHBoxLayout;
    head->addWidget(new QLabel(tr("<b>Notifications</b>"), m_popup), 1);
    auto* clear = new QPushButton(tr("Clear"), m_popup);
    head->addWidget(clear);
    v->addLayout(head);
    m_view = new QListView(m_popup);
    m_view->setAccessibleName(tr("Notifications"));
    m_view->setModel(list);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setWordWrap(true);
    v->addWidget(m_view, 1);
    connect(clear, &QPushButton::clicked, list, &models::NoticeListModel::clear);
    connect(m_view, &QListView::activated, this, [this](const QModelIndex& index) {
        m_popup->hide();
        Q_EMIT openRequested(index.data(models::NoticeListModel::TargetRole).toString());
    });
    connect(list, &models::NoticeListModel::unreadChanged, this, &NotificationButton::updateText);
    connect(this, &QToolButton::clicked, this, &NotificationButton::showList);
    updateText(0);
}

void NotificationButton::updateText(int unread) {
    setText(unread ? QString::number(unread) : QString());
    setAccessibleName(unread ? tr("Notifications, %n unread", nullptr, unread)
                             : tr("Notifications"));
}

void NotificationButton::showList() {
    const QSize size(420, 320);
    QPoint at = mapToGlobal(QPoint(width() - size.width(), -size.height()));
    m_popup->setGeometry(QRect(at, size));
    m_popup->show();
    m_view->setFocus(Qt::PopupFocusReason);
    if (m_list->rowCount())
        m_view->setCurrentIndex(m_list->index(0, 0));
    m_list->markRead();
}

} // namespace studio::widgets
