# The launch dialog: form, live validation, Clone and edit round trips, and a real run.
studio_test(test_launch_dialog LABEL gui SOURCES test_launch_dialog.cpp
    LIBS studio_widgets_launch studio_control Qt6::Widgets TIMEOUT 300)
