// The launch dialog's section list rows: roomy, the current page marked with a bar on the left
// and a red count of the section's problems (kProblemCountRole) on the right. GUI thread only.
#pragma once

#include <QStyledItemDelegate>

namespace studio::widgets {

inline constexpr int kProblemCountRole = Qt::UserRole + 1;

class SectionDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex&) const override;
    void paint(QPainter* p, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;
};

} // namespace studio::widgets
