# Run at every build (cmake -P): writes OUTPUT, a header with the commit of SOURCE_DIR and whether tracked files differ
# from it, and rewrites it only when that changes, so that a result file names the source its binary was built from.
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE commit_failed)
execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE changes OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE status_failed)
if(commit_failed OR NOT commit)
  set(commit unknown)
  set(dirty unknown)
elseif(status_failed)
  set(dirty unknown)
elseif(changes)
  set(dirty yes)
else()
  set(dirty no)
endif()
set(text "/* Written by cmake/git_provenance.cmake at build time */\n#define MBSID_GIT_COMMIT \"${commit}\"\n#define MBSID_GIT_DIRTY \"${dirty}\"\n")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${OUTPUT} "${text}")
endif()
