# Clusters: the dialog's validation, the cluster tree and a job's Nodes model over a real store
# with real checks, and the Clusters page driven through the studio window.
studio_test(test_clusters LABEL gui SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_clusters.cpp
    LIBS studio_widgets_shell TIMEOUT 300)
