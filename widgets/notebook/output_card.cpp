#include "widgets/notebook/output_card.h"

#include <QFrame>
#include <QGridLayout>

namespace studio::widgets {

QGridLayout* setUpOutputCard(QFrame* card, const char* objectName) {
    card->setObjectName(QLatin1String(objectName));
    card->setFrameShape(QFrame::StyledPanel);
    card->setAutoFillBackground(true);
    card->setBackgroundRole(QPalette::Base);
    card->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    auto* grid = new QGridLayout(card);
    grid->setContentsMargins(10, 8, 10, 8);
    grid->setHorizontalSpacing(12);
    grid->setVerticalSpacing(4);
    return grid;
}

} // namespace studio::widgets
