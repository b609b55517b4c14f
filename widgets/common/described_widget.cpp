#include "widgets/common/described_widget.h"

#include <QAccessible>
#include <QAccessibleWidget>
#include <QWidget>

#include <cmath>

namespace studio::widgets {

namespace {

class DescribedAccessible : public QAccessibleWidget {
public:
    DescribedAccessible(QWidget* w, const Describable* d)
        : QAccessibleWidget(w, QAccessible::Chart)
        , m_described(d) {}

    QString text(QAccessible::Text t) const override {
        if (t == QAccessible::Description) {
            const QString set = widget()->accessibleDescription();
            return set.isEmpty() ? m_described->describe() : set;
        }
        if (t == QAccessible::Name && widget()->accessibleName().isEmpty())
            return widget()->objectName();
        return QAccessibleWidget::text(t);
    }

private:
    const Describable* m_described;
};

QAccessibleInterface* describedFactory(const QString&, QObject* object) {
    auto* widget = qobject_cast<QWidget*>(object);
    if (!widget)
        return nullptr;
    if (const auto* d = dynamic_cast<const Describable*>(widget))
        return new DescribedAccessible(widget, d);
    return nullptr;
}

} // namespace

Describable::Describable() {
    static const bool installed = [] {
        QAccessible::installFactory(describedFactory);
        return true;
    }();
    (void)installed;
}

QString spokenNumber(double value) {
    if (!std::isfinite(value))
        return QStringLiteral("none");
    return QString::number(value, 'g', 3);
}

} // namespace studio::widgets
