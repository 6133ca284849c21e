# The UI tests' relative costs, so that ctest starts the longest first in a fresh build tree (it has no timings of its
# own yet; without these the lab's summary, last in discovery order, ran alone on one core at the end). Read by ctest
# after the discovered tests (TEST_INCLUDE_FILES); a renamed test fails here, naming it.
foreach(entry
    "800|ui:lab: the summary shows every method's steps in whole percents, all rows and columns on both displays"
    "600|ui:extreme settings: every panel, every display, no assertion, finite values"
    "600|ui:every preset model: every panel draws with no assertion, finite values, a bounded table image"
    "500|ui:lab on threads: Run finishes on two threads, equals core's run_lab of each run, and the panel shows it"
    "400|ui:lab: the app's document for every method is the CLI's, byte for byte but for its times"
    "400|ui:lab positions: the sequential vs random view runs the other placement and sets the two side by side")
  string(FIND "${entry}" "|" bar)
  string(SUBSTRING "${entry}" 0 ${bar} cost)
  math(EXPR from "${bar} + 1")
  string(SUBSTRING "${entry}" ${from} -1 name)
  set_tests_properties("${name}" PROPERTIES COST ${cost})
endforeach()
