studio_test(test_engine_bridge LABEL gui SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_engine_bridge.cpp
    LIBS studio_models)
