# Writes OUTPUT from cmake/version.hpp.in with PROJECT_VERSION and the git short revision
# of SOURCE_DIR ("unknown" outside a git checkout). Run at configure time and before each
# build (target schedopt_version_header); configure_file leaves an unchanged header alone,
# so nothing recompiles until the revision moves.
set(SCHEDOPT_GIT_REVISION unknown)
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short HEAD
                  WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE revision OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE result ERROR_QUIET)
  if(result EQUAL 0 AND revision)
    set(SCHEDOPT_GIT_REVISION ${revision})
  endif()
endif()
configure_file(${SOURCE_DIR}/cmake/version.hpp.in ${OUTPUT} @ONLY)
