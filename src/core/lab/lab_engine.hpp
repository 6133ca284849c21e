// A lab being trained, wherever its runs train (this thread, threads, Web Workers): what the app reads of it.
#pragma once

#include <utility>
#include <vector>

#include "core/lab/lab.hpp"

namespace rv {

// What LabRun gives a caller, whoever trains: the result so far, the first seeds' trained models, progress, done.
class LabEngine {
 public:
  virtual ~LabEngine() = default;
  // Advances the lab. An engine that trains on the caller's thread does one unit of work; one that trains elsewhere
  // (background()) takes in what has arrived, at no cost (no allocation) when nothing has.
  virtual void step() = 0;
  virtual bool done() const = 0;
  virtual const LabResult& result() const = 0;
  virtual double progress() const = 0;  // 0..1
  // Each method's first seed's final model once it has one, in the order of the methods.
  virtual const std::vector<LabTrained>& trained() const = 0;
  // The runs train elsewhere: step() only gathers, so a caller polls it (once a frame) instead of spinning on it.
  virtual bool background() const { return false; }
  // Stops training: the result keeps the runs finished and what the others trained so far (done() stays false).
  virtual void stop() {}
  // Wall time of the lab so far (ETA); the one-thread run: the time inside step().
  virtual double seconds() const { return result().seconds; }
};

// The one-thread LabRun (core/lab/lab.hpp) as an engine: step() is one unit of its work on the caller's thread.
class LabSerial final : public LabEngine {
 public:
  explicit LabSerial(LabOptions o) : run_(std::move(o)) {}
  void step() override { run_.step(); }
  bool done() const override { return run_.done(); }
  const LabResult& result() const override { return run_.result(); }
  double progress() const override { return run_.progress(); }
  const std::vector<LabTrained>& trained() const override { return run_.trained(); }

 private:
  LabRun run_;
};

}  // namespace rv
