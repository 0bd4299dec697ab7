import ErrorCodes
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceAPI
import TextFormats
import TokenActivation
import WalletModel

extension APIRoutes {
    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
    static let replayed = ("Idempotent-Replayed", "true")

    /// `POST /v1/activations`: one activation, answered as `activate --json` prints it.
    func activation(_ request: Request) async throws -> Response {
        let body = try await Self.collect(request)
        let decoded = try ActivationRequest.decode(body, contentType: request.headers[.contentType])
        let keyValues = request.headers[values: Self.idempotencyKey]
        guard keyValues.count <= 1 else {
            throw Problem.invalid("Idempotency-Key is given \(keyValues.count) times: send it once")
        }
        let key = try ActivationRequest.idempotencyKey(keyValues.first)
        if service.isDraining { throw Self.stopping }
        guard let key else {
            guard let result = await service.activate(decoded) else { throw Self.overloaded }
            return Self.response(Self.answer(result))
        }
        let keys = service.idempotency
        let serial = service.runtime.serialNumber(of: decoded.deeplink)
        do {
            switch try await keys.claim(key: key, request: decoded, serialNumber: serial) {
            case .claimed(let requestID):
                return await keyed(decoded, key: key, requestID: requestID)
            case .replay(let status, let body):
                return Self.body(
                    status, contentType: status == 200 ? "application/json" : "application/problem+json",
                    Array(body.utf8) + [0x0A], headers: [Self.replayed])
            case .mismatch:
                return Self.problem(
                    Problem(
                        status: 422, code: .idempotencyMismatch,
                        detail:
                            "this Idempotency-Key was first used with another request (deeplink, device or dryRun); use a new key for a new activation"
                    ))
            case .unanswered(let requestID, let serialNumber, let created, let owner):
                return try await unanswered(
                    decoded, key: key, requestID: requestID, serialNumber: serialNumber, created: created, owner: owner,
                    serial: serial)
            }
        } catch {
            return Self.problem(Self.storageProblem(error))
        }
    }

    /// A repeat whose key holds no answer: the attempt its first request started answers it
    /// (finished, or closed as interrupted once its owner is gone), and nothing is sent. Only
    /// a claim whose request started no attempt and whose process is gone (or, on another
    /// host, that is older than an attempt can last) runs.
    private func unanswered(
        _ request: ActivationRequest, key: String, requestID: String?, serialNumber: String?, created: Int64,
        owner: String?, serial: String?
    ) async throws -> Response {
        if service.isRunning(key: key) { return Self.problem(Self.keyInFlight) }
        let runtime = service.runtime
        if let requestID, let serialNumber {
            var entry = try await runtime.attempt(serialNumber: serialNumber, requestID: requestID)
            if let open = entry, open.outcome == nil {
                // Open: closed as interrupted when its owner is gone, left alone when it runs.
                try await runtime.closeInterrupted(serialNumber: serialNumber)
                entry = try await runtime.attempt(serialNumber: serialNumber, requestID: requestID)
            }
            if let entry {
                guard let result = ActivationResult(finished: entry) else { return Self.problem(Self.keyInFlight) }
                let answer = Self.answer(result)
                await store(answer, key: key)
                return Self.response(answer, headers: [Self.replayed])
            }
        }
        let keys = service.idempotency
        // A claim is taken over when its process is gone, or when its request ended in this
        // process without the answer stored (never left to a live owner whose request ended).
        guard service.endedUnanswered(key) || keys.isAbandoned(createdMilliseconds: created, owner: owner) else {
            return Self.problem(Self.keyInFlight)
        }
        let next = requestID ?? ActivationRuntime.makeRequestID()
        guard
            try await keys.takeOver(key: key, createdMilliseconds: created, requestID: next, serialNumber: serial)
        else {
            return Self.problem(Self.keyInFlight)
        }
        service.logger.notice("service.idempotencyTakenOver", metadata: ["request-id": "\(next)"])
        return await keyed(request, key: key, requestID: next)
    }

    /// Runs a claimed key's activation under its request id and settles its claim.
    private func keyed(_ request: ActivationRequest, key: String, requestID: String) async -> Response {
        let service = self.service
        return await service.running(key: key) {
            guard let result = await service.activate(request, requestID: requestID) else {
                await settle(.end(requestID: requestID), key: key)
                return Self.problem(Self.overloaded)
            }
            let answer = Self.answer(result)
            await settle(Self.settlement(of: result, answer, requestID: requestID), key: key)
            return Self.response(answer)
        }
    }

    /// What a claim keeps of its request's result: the answer, unless the database failed
    /// the request (a failover): that answer is no one's to replay, and a repeat answers the
    /// attempt in the audit instead, or runs when none started.
    static func settlement(
        of result: ActivationResult, _ answer: (status: Int, body: JSONObject), requestID: String
    ) -> ClaimSettlement {
        if let code = result.error?.code, StorageError.isTransient(code) { return .end(requestID: requestID) }
        return .answer(status: answer.status, body: answer.body.text)
    }

    /// Keeps a key's answer; a failure is logged and the key's answer written once the
    /// database accepts writes again (a repeat meanwhile finds the attempt in the audit, or,
    /// when none started, runs).
    private func store(_ answer: (status: Int, body: JSONObject), key: String) async {
        await settle(.answer(status: answer.status, body: answer.body.text), key: key)
    }

    private func settle(_ settlement: ClaimSettlement, key: String) async {
        guard let error = await service.settle(key: key, settlement) else { return }
        service.logger.warning(
            "service.idempotencyNotStored",
            metadata: [
                "error": "\((error as? any CodedError)?.code.rawValue ?? "storage.io")",
                "next": "written once the database accepts writes again",
            ])
    }

    /// An activation's HTTP status and body: 200 with the §3 object, or its problem.
    static func answer(_ result: ActivationResult) -> (status: Int, body: JSONObject) {
        switch ActivationStatus.answer(result) {
        case .success(let object): (200, object)
        case .failure(let problem): (problem.status, problem.json)
        }
    }

    static func response(
        _ answer: (status: Int, body: JSONObject), headers: [(name: String, value: String)] = []
    ) -> Response {
        Self.body(
            answer.status, contentType: answer.status == 200 ? "application/json" : "application/problem+json",
            JSONObject.Value.object(answer.body).utf8 + [0x0A], headers: headers)
    }

    static let keyInFlight = Problem(
        status: 409, code: .activationInProgress,
        detail: "the first request with this Idempotency-Key is still running; repeat it once that one is answered"
    )

    /// `POST /v1/activations/batch`: a deeplink (or `{"deeplink": …}` object) a line in, one
    /// `activate --batch --json` object a line out, in input order, each written as soon as
    /// it and every line before it are finished.
    func batch(_ request: Request) throws -> Response {
        let format = try BatchFormat(contentType: request.headers[.contentType])
        guard request.headers[Self.idempotencyKey] == nil else {
            throw Problem.invalid(
                "a batch takes no Idempotency-Key (each line is an activation of its own, and a batch is not answered again): send keyed activations one at a time to /v1/activations"
            )
        }
        if service.isDraining { throw Self.stopping }
        // Each line is one activation in the same admission; a batch arriving past the
        // queue limit is refused whole, before any line is read.
        if service.runtime.isFull { throw Self.overloaded }
        let service = self.service
        var headers = HTTPFields()
        headers[.contentType] = "application/x-ndjson"
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                try await BatchStream(service: service, format: format).run(request.body) { line in
                    try await writer.write(ByteBuffer(bytes: line))
                }
                try await writer.finish(nil)
            })
    }

    static let tooLarge = Problem(
        status: 413, code: .requestTooLarge, detail: "the body is over \(ActivationRequest.maximumBodyBytes) bytes")

    /// The body, refused once it passes the limit (413) without reading the rest.
    static func collect(_ request: Request) async throws -> [UInt8] {
        let limit = ActivationRequest.maximumBodyBytes
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit { throw tooLarge }
        do {
            return Array(try await request.body.collect(upTo: limit).readableBytesView)
        } catch is NIOTooManyBytesError {
            throw tooLarge
        } catch {
            throw Problem.invalid("the body could not be read")
        }
    }

    static let overloaded: Problem = {
        var problem = Problem(
            status: 503, code: .serviceOverloaded,
            detail:
                "too many requests are waiting (service.queue-limit); nothing was sent; retry after the Retry-After seconds"
        )
        problem.headers = [("Retry-After", "1")]
        return problem
    }()

    static let stopping: Problem = {
        var problem = Problem(
            status: 503, code: .serviceOverloaded,
            detail: "the service is stopping; nothing was sent; retry on another instance or once it is back")
        problem.headers = [("Retry-After", "5")]
        return problem
    }()

    /// A database failure outside an activation, as its problem (503 for storage errors).
    static func storageProblem(_ error: any Error) -> Problem {
        let coded = (error as? any CodedError) ?? StorageError(.storageIO, "the database failed")
        return Problem(
            status: ActivationStatus.httpStatus(exitCode: coded.code.exitStatus), code: coded.code,
            detail: coded.message)
    }
}
