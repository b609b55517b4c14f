#include "widgets/common/theme.h"

#include <QActionGroup>
#include <QApplication>
#include <QMenu>
#include <QPainter>
#include <QPalette>
#include <QStyle>
#include <QStyleFactory>

namespace studio::widgets {

namespace {

bool g_dark = false;

QPalette lightPalette() {
    QPalette p;
    p.setColor(QPalette::Window, QColor(0xf5, 0xf6, 0xf8));
    p.setColor(QPalette::WindowText, QColor(0x1f, 0x23, 0x28));
    p.setColor(QPalette::Base, Qt::white);
    p.setColor(QPalette::AlternateBase, QColor(0xf6, 0xf8, 0xfa));
    p.setColor(QPalette::ToolTipBase, QColor(0x1f, 0x23, 0x28));
    p.setColor(QPalette::ToolTipText, Qt::white);
    p.setColor(QPalette::Text, QColor(0x1f, 0x23, 0x28));
    p.setColor(QPalette::PlaceholderText, QColor(0x8c, 0x95, 0x9f));
    p.setColor(QPalette::Button, QColor(0xf0, 0xf2, 0xf5));
    p.setColor(QPalette::ButtonText, QColor(0x1f, 0x23, 0x28));
    p.setColor(QPalette::Highlight, QColor(0x2f, 0x6f, 0xde));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x1a, 0x5f, 0xd0));
    p.setColor(QPalette::Mid, QColor(0xd0, 0xd7, 0xde));
    p.setColor(QPalette::Dark, QColor(0xaf, 0xb8, 0xc1));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x9a, 0xa1, 0xa9));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x9a, 0xa1, 0xa9));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x9a, 0xa1, 0xa9));
    return p;
}

QPalette darkPalette() {
    QPalette p;
    p.setColor(QPalette::Window, QColor(0x1e, 0x22, 0x27));
    p.setColor(QPalette::WindowText, QColor(0xd8, 0xdc, 0xe1));
    p.setColor(QPalette::Base, QColor(0x16, 0x19, 0x1d));
    p.setColor(QPalette::AlternateBase, QColor(0x1c, 0x20, 0x25));
    p.setColor(QPalette::ToolTipBase, QColor(0x2b, 0x30, 0x36));
    p.setColor(QPalette::ToolTipText, QColor(0xe6, 0xe9, 0xec));
    p.setColor(QPalette::Text, QColor(0xd8, 0xdc, 0xe1));
    p.setColor(QPalette::PlaceholderText, QColor(0x76, 0x7d, 0x86));
    p.setColor(QPalette::Button, QColor(0x2a, 0x2f, 0x35));
    p.setColor(QPalette::ButtonText, QColor(0xd8, 0xdc, 0xe1));
    p.setColor(QPalette::Highlight, QColor(0x3b, 0x7d, 0xe9));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x6c, 0xa8, 0xff));
    p.setColor(QPalette::Mid, QColor(0x3a, 0x40, 0x47));
    p.setColor(QPalette::Dark, QColor(0x12, 0x14, 0x17));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x6b, 0x72, 0x7a));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x6b, 0x72, 0x7a));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x6b, 0x72, 0x7a));
    return p;
}

} // namespace

void applyTheme(QApplication& app, ThemeChoice choice) {
    // The platform's palette before ours replaces it: what "follow the system" reads.
    static const QPalette system = QApplication::palette();
    if (QStyle* fusion = QStyleFactory::create(QStringLiteral("Fusion")))
        QApplication::setStyle(fusion);
    bool dark = choice == ThemeChoice::Dark;
    if (choice == ThemeChoice::System)
        dark = system.color(QPalette::Window).lightness() < 128;
    g_dark = dark;
    app.setPalette(dark ? darkPalette() : lightPalette());
}

QIcon textColoredIcon(QStyle::StandardPixmap which, const QStyle* style, const QPalette& palette) {
    const QIcon source = style->standardIcon(which);
    QIcon out;
    for (int size : {16, 22, 32, 44, 64}) {
        QPixmap pixmap = source.pixmap(size);
        if (pixmap.isNull())
            continue;
        QPainter p(&pixmap);
        p.setCompositionMode(QPainter::CompositionMode_SourceIn);
        p.fillRect(pixmap.rect(), palette.color(QPalette::WindowText));
        p.end();
        out.addPixmap(pixmap);
    }
    return out;
}

bool darkThemeActive() {
    return g_dark;
}

QActionGroup* addThemeMenu(QMenu* parent, ThemeChoice current,
                           std::function<void(ThemeChoice)> chosen) {
    QMenu* menu = parent->addMenu(QObject::tr("&Theme"));
    auto* group = new QActionGroup(menu);
    const QString names[] = {QObject::tr("Follow the system"), QObject::tr("Light"),
                             QObject::tr("Dark")};
    for (int i = 0; i < 3; ++i) {
        QAction* a = menu->addAction(names[i]);
        a->setCheckable(true);
        a->setChecked(i == static_cast<int>(current));
        group->addAction(a);
        QObject::connect(a, &QAction::triggered, menu,
                         [i, chosen] { chosen(static_cast<ThemeChoice>(i)); });
    }
    return group;
}

} // namespace studio::widgets
