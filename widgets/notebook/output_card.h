// The frame every live card in a notebook's outputs shares (a training job's, a tuning job's):
// a raised panel in the base colour, as tall as its contents, with the cards' grid layout.
#pragma once

class QFrame;
class QGridLayout;

namespace studio::widgets {

// Gives card its name, frame and background, and returns its grid (margins and spacing set).
QGridLayout* setUpOutputCard(QFrame* card, const char* objectName);

} // namespace studio::widgets
