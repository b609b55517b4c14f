# Tuning jobs: the tab's math (table-driven), its item models under QAbstractItemModelTester and
# the tab over a synthetic tuning job in a real store, with screenshots.
studio_test(test_tuning_math LABEL unit SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_tuning_math.cpp
    LIBS studio_models)
studio_test(test_tuning_views LABEL gui SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_tuning_views.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/tuning_fixture.h
    LIBS studio_widgets_tuning TIMEOUT 120)
# The Tuning activity, the launch dialog's Tune switch and a real Tuner running two script jobs.
studio_test(test_tuning_window LABEL gui TIMEOUT 240
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_tuning_window.cpp LIBS studio_widgets_shell)
