// state().lab (docs/window-ropeviz.md): the lab's section of the app's JSON state.
#include "app/lab/lab_session.hpp"
#include "core/base/json_writer.hpp"

namespace rv {

// The lab's run: progress while it runs, and the finished (or stopped) run's document as `ropeviz-cli lab` prints it.
void lab_state(JsonWriter& j, const LabSession& lab) {
  j.key("lab").begin_object().key("running").value(lab.running).key("stopped").value(lab.stopped);
  j.key("serial").value((long long)lab.serial).key("progress").value(lab.run ? lab.run->progress() : 0.0);
  j.key("error");
  if (lab.error.empty())
    j.null();
  else
    j.value(lab.error);
  j.key("result");
  if (lab.result_json.empty())
    j.null();
  else
    j.raw(lab.result_json);
  j.end_object();
}

}  // namespace rv
