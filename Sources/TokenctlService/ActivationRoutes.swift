import ErrorCodes
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceAPI
import TokenActivation
import WalletModel

extension APIResponder {
    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
    static let replayed = ("Idempotent-Replayed", "true")

    /// `POST /v1/activations`: one activation, answered as `activate --json` prints it.
    func activation(_ request: Request) async -> Response {
        let decoded: ActivationRequest
        let key: String?
        do throws(Problem) {
            let body = try await Self.collect(request)
            decoded = try ActivationRequest.decode(body, contentType: request.headers[.contentType])
            key = try ActivationRequest.idempotencyKey(request.headers[Self.idempotencyKey])
        } catch {
            return Self.problem(error)
        }
        if service.isDraining { return Self.problem(Self.stopping) }
        if let key {
            let claim: IdempotencyKeys.Claim
            do {
                let keys = service.idempotency
                claim = try await ActivationService.blocking { try keys.claim(key: key, deeplink: decoded.deeplink) }
            } catch {
                return Self.problem(Self.storageProblem(error))
            }
            switch claim {
            case .claimed: break
            case .replay(let status, let body):
                return Self.body(status, contentType: status == 200 ? "application/json" : "application/problem+json", Array(body.utf8) + [0x0A], headers: [Self.replayed])
            case .mismatch:
                return Self.problem(Problem(status: 422, code: .idempotencyMismatch, detail: "this Idempotency-Key was first used with another deeplink; use a new key for a new activation"))
            case .inFlight:
                return Self.problem(Problem(status: 409, code: .activationInProgress, detail: "the first request with this Idempotency-Key is still running; repeat it once that one is answered"))
            }
        }
        guard let result = await service.admission.run({ await service.activate(decoded) }) else {
            if let key {
                let keys = service.idempotency
                _ = try? await ActivationService.blocking { try keys.release(key: key) }
            }
            return Self.problem(Self.overloaded)
        }
        let (status, body): (Int, JSONObject)
        switch ActivationStatus.answer(result) {
        case .success(let object): (status, body) = (200, object)
        case .failure(let problem): (status, body) = (problem.status, problem.json)
        }
        if let key {
            let keys = service.idempotency
            let text = body.text
            do {
                try await ActivationService.blocking { try keys.store(key: key, status: status, body: text) }
            } catch {
                service.logger.warning("service.idempotencyNotStored", metadata: ["error": "\(error)"])
            }
        }
        return status == 200 ? Self.json(200, body) : Self.body(status, contentType: "application/problem+json", JSONObject.Value.object(body).utf8 + [0x0A])
    }

    /// `POST /v1/activations/batch`: a deeplink (or `{"deeplink": …}` object) a line in, one
    /// `activate --batch --json` object a line out, in input order, each written as soon as
    /// it and every line before it are finished.
    func batch(_ request: Request) -> Response {
        let format: BatchFormat
        do throws(Problem) {
            format = try BatchFormat(contentType: request.headers[.contentType])
        } catch {
            return Self.problem(error)
        }
        if service.isDraining { return Self.problem(Self.stopping) }
        let service = self.service
        var headers = HTTPFields()
        headers[.contentType] = "application/x-ndjson"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            try await BatchStream(service: service, format: format).run(request.body) { line in
                try await writer.write(ByteBuffer(bytes: line))
            }
            try await writer.finish(nil)
        })
    }

    /// The body, refused once it passes the limit (413) without reading the rest.
    static func collect(_ request: Request) async throws(Problem) -> [UInt8] {
        let limit = ActivationRequest.maximumBodyBytes
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw Problem(status: 413, code: .requestTooLarge, detail: "the body is over \(limit) bytes")
        }
        var bytes: [UInt8] = []
        do {
            for try await buffer in request.body {
                guard bytes.count + buffer.readableBytes <= limit else {
                    throw Problem(status: 413, code: .requestTooLarge, detail: "the body is over \(limit) bytes")
                }
                bytes.append(contentsOf: buffer.readableBytesView)
            }
        } catch let problem as Problem {
            throw problem
        } catch {
            throw Problem.invalid("the body could not be read")
        }
        return bytes
    }

    static let overloaded: Problem = {
        var problem = Problem(status: 503, code: .serviceOverloaded, detail: "too many requests are waiting (service.queue-limit); nothing was sent; retry after the Retry-After seconds")
        problem.headers = [("Retry-After", "1")]
        return problem
    }()

    static let stopping: Problem = {
        var problem = Problem(status: 503, code: .serviceOverloaded, detail: "the service is stopping; nothing was sent; retry on another instance or once it is back")
        problem.headers = [("Retry-After", "5")]
        return problem
    }()

    /// A database failure outside an activation, as its problem (503 for storage errors).
    static func storageProblem(_ error: any Error) -> Problem {
        let coded = (error as? any CodedError) ?? StorageError(.storageIO, "the database failed")
        return Problem(status: ActivationStatus.httpStatus(exitCode: coded.code.exitStatus), code: coded.code, detail: coded.message)
    }
}
