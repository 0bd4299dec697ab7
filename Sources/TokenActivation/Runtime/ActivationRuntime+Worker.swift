import WalletModel

extension ActivationRuntime {
    /// An activation TMP answered whose "finished" write waits in the commit queue.
    private struct Held {
        let job: ActivationJob
        let activation: DeferredActivation
    }

    /// Runs jobs until the queue is empty, then waits on the idle stack; returns once
    /// stopping with nothing left to do.
    ///
    /// A held activation is answered as soon as the worker's next activation's first write
    /// is committed with it, or at once when no job waits: an answer never waits for a job
    /// that has not arrived.
    func work(_ worker: Int) {
        var held: Held?
        let keep: ((AttemptWrite, any Error) -> Void)? =
            options.keepsUnwritten ? { [self] step, _ in unwritten.withLock { $0.append(step) } } : nil
        func answerHeld() {
            guard let last = held else { return }
            held = nil
            deliver(last.job, session.settle(last.activation, keepUnwritten: keep))
        }
        while true {
            wakeups[worker].wait()
            var isBusy = false
            while true {
                let holding = held != nil
                let job = queue.withLock { queue -> ActivationJob? in
                    if let job = queue.take() {
                        if !isBusy { queue.busy += 1 }
                        return job
                    }
                    if !holding {
                        if isBusy { queue.busy -= 1 }
                        if !queue.stopping { queue.idle.append(worker) }
                    }
                    return nil
                }
                guard let job else {
                    if holding {
                        answerHeld()
                        continue
                    }
                    break
                }
                isBusy = true
                if let isWithdrawn = job.isWithdrawn, isWithdrawn() {
                    job.deliver(nil)
                    continue
                }
                started()
                let activation = session.run(
                    job, client: worker, deferringFinish: options.defersFinish, keepUnwritten: keep,
                    settlePrevious: answerHeld
                )
                if activation.finish == nil {
                    deliver(job, activation.result)
                } else {
                    held = Held(job: job, activation: activation)
                }
            }
            if queue.withLock({ $0.stopping }) { return }
        }
    }
}
