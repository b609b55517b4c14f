#include "widgets/notebook/message_bar.h"

#include "widgets/common/theme.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QStyle>

namespace studio::widgets {

MessageBar::MessageBar(QWidget* parent)
    : QFrame(parent) {
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    auto* h = new QHBoxLayout(this);
    h->setContentsMargins(10, 6, 10, 6);
    h->setSpacing(8);
    m_icon = new QLabel(this);
    m_text = new QLabel(this);
    m_text->setWordWrap(true);
    m_text->setTextFormat(Qt::PlainText);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_text->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    m_buttons = new QHBoxLayout;
    m_buttons->setSpacing(6);
    h->addWidget(m_icon, 0, Qt::AlignTop);
    h->addWidget(m_text, 1);
    h->addLayout(m_buttons);
    hide();
}

void MessageBar::showMessage(Kind kind, const QString& text) {
    m_kind = kind;
    while (QLayoutItem* item = m_buttons->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    const bool dark = darkThemeActive();
    QColor background;
    QStyle::StandardPixmap icon = QStyle::SP_MessageBoxInformation;
    switch (kind) {
    case Kind::Info:
        background = dark ? QColor(0x1d, 0x2b, 0x3d) : QColor(0xe8, 0xf1, 0xfd);
        break;
    case Kind::Warning:
        background = dark ? QColor(0x3a, 0x31, 0x18) : QColor(0xff, 0xf4, 0xd6);
        icon = QStyle::SP_MessageBoxWarning;
        break;
    case Kind::Error:
        background = dark ? QColor(0x3f, 0x1f, 0x1f) : QColor(0xfd, 0xe7, 0xe5);
        icon = QStyle::SP_MessageBoxCritical;
        break;
    }
    QPalette p = palette();
    p.setColor(QPalette::Window, background);
    setPalette(p);
    m_icon->setPixmap(style()->standardIcon(icon).pixmap(18, 18));
    m_text->setText(text);
    show();
}

QPushButton* MessageBar::addButton(const QString& text, const QString& objectName,
                                   std::function<void()> action) {
    auto* b = new QPushButton(text, this);
    b->setObjectName(objectName);
    b->setAutoDefault(false);
    connect(b, &QPushButton::clicked, this, [action = std::move(action)] { action(); });
    m_buttons->addWidget(b);
    return b;
}

void MessageBar::dismiss() {
    hide();
}

QString MessageBar::text() const {
    return m_text->text();
}

} // namespace studio::widgets
