// gestured.js — a gestured client for web pages: an ES module, no build step, no dependencies.
//
// The daemon's WebSocket endpoint (docs/CONFIGURATION.md, `websocket`) speaks the socket protocol
// of docs/PROTOCOL.md: one JSON message per text frame. This module keeps a connection up
// (reconnecting with an exponential back-off), re-sends the subscription after every reconnect,
// matches replies to requests, and hands messages out by type, to callbacks or async iterators.
//
//   import { GesturedClient } from "./gestured.js";
//
//   const client = new GesturedClient("ws://127.0.0.1:7330/", {
//     subscribe: { kinds: ["swipe", "tap"], touches: true },
//   });
//   client.on("gesture", (g) => console.log(g.name, g.state, g.direction));
//   client.on("touch", (t) => draw(t.touch, t.position));
//   client.on("status", (s) => console.log(s.state));        // connecting | open | closed
//                                                             // (open: subscribed, receiving)
//
//   for await (const g of client.messages("gesture")) { ... } // or an async iterator
//
// Message types: hello, gesture, touch, device, dropped, error (an `error` without a request
// id: the server's word on the connection, e.g. `overflow`, `shutdown`), plus the module's own
// `status`. Replies (`ok`, `pong`, an `error` with an id) settle the promise of their request.

const DEFAULTS = {
  // The subscription (docs/PROTOCOL.md, `subscribe`) sent on every (re)connection; null: none.
  subscribe: {},
  // Back-off between attempts: starts at minDelayMs, doubles up to maxDelayMs, ± 20 % jitter;
  // back to minDelayMs once a connection got its `hello`.
  minDelayMs: 250,
  maxDelayMs: 10_000,
  // A request not answered within this is rejected (the connection is probably gone).
  requestTimeoutMs: 10_000,
  // Messages an async iterator holds for a consumer that has not asked for them yet; beyond
  // it the iterator fails (a loop that cannot keep up should use a callback, which never waits).
  iteratorBuffer: 4096,
  // For tests: a WebSocket constructor.
  WebSocket: globalThis.WebSocket,
};

/** The server answered a request with an `error` (`code`, `message`, `path` as the protocol). */
export class GesturedError extends Error {
  constructor(message) {
    super(`${message.code}: ${message.message}`);
    this.name = "GesturedError";
    this.code = message.code;
    this.path = message.path;
    this.error = message;
  }
}

export class GesturedClient {
  /**
   * Connects at once and keeps reconnecting until close().
   * @param {string} url  the daemon's WebSocket endpoint, e.g. "ws://127.0.0.1:7330/"
   * @param {object} options  see DEFAULTS
   */
  constructor(url, options = {}) {
    this.url = url;
    this.options = { ...DEFAULTS, ...options };
    /** The last `hello` (devices, recognizers, limits), or null before the first one. */
    this.hello = null;
    this._subscription = this.options.subscribe;
    this._handlers = new Map(); // type → Set of callbacks
    this._pending = new Map(); // request id → {resolve, reject, timer}
    this._nextId = 1;
    this._socket = null;
    this._delay = this.options.minDelayMs;
    this._retryTimer = null;
    this._closed = false;
    this._connect();
  }

  /** "connecting", "open" (after `hello`, and the subscription's `ok` when there is one) or "closed". */
  get state() {
    if (this._socket && this.hello && this._socket.readyState === 1) return "open";
    return this._closed ? "closed" : "connecting";
  }

  /**
   * Calls `callback(message)` for every message of `type`; returns a function that stops it.
   * `type` "*" receives every message.
   */
  on(type, callback) {
    if (!this._handlers.has(type)) this._handlers.set(type, new Set());
    this._handlers.get(type).add(callback);
    return () => this._handlers.get(type)?.delete(callback);
  }

  /**
   * An async iterator over messages of `type` from now on; ends when the client is closed
   * (or when `break` leaves the loop), fails when the consumer falls behind by more than
   * `iteratorBuffer` messages.
   */
  messages(type) {
    const buffered = [];
    const waiting = [];
    let failure = null;
    let done = false;
    const limit = this.options.iteratorBuffer;
    const finish = () => {
      done = true;
      stop();
      stopClose();
      for (const w of waiting.splice(0)) w.resolve({ value: undefined, done: true });
    };
    const stop = this.on(type, (message) => {
      if (waiting.length > 0) return waiting.shift().resolve({ value: message, done: false });
      if (buffered.length >= limit) {
        failure = new Error(`gestured.js: the '${type}' iterator fell more than ${limit} messages behind`);
        stop();
        return;
      }
      buffered.push(message);
    });
    const stopClose = this.on("status", (s) => {
      if (s.state === "closed") finish();
    });
    return {
      next() {
        if (buffered.length > 0) return Promise.resolve({ value: buffered.shift(), done: false });
        if (failure) return Promise.reject(failure);
        if (done) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
      },
      return() {
        finish();
        return Promise.resolve({ value: undefined, done: true });
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
  }

  /** Replaces the subscription (also for every later reconnection); resolves on `ok`. */
  subscribe(filters = {}) {
    this._subscription = filters;
    return this.request({ type: "subscribe", ...filters });
  }

  /** No more gestures or touches (also after reconnecting); resolves on `ok`. */
  unsubscribe() {
    this._subscription = null;
    return this.request({ type: "unsubscribe" });
  }

  /** Resolves with the `pong` once the daemon's input thread has caught up. */
  ping() {
    return this.request({ type: "ping" });
  }

  /**
   * Defines regions and recognizers for this connection (only where the daemon's
   * `websocket.allow-define` is true; else the promise fails with code `unavailable`).
   * Not re-sent after a reconnect: definitions belong to a connection.
   */
  define(definitions) {
    return this.request({ type: "define", ...definitions });
  }

  /** Sends a request with a fresh id; resolves with its reply, rejects with a GesturedError. */
  request(body) {
    if (!this._socket || this._socket.readyState !== 1) {
      return Promise.reject(new Error("gestured.js: not connected"));
    }
    const id = this._nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this._pending.delete(id);
        reject(new Error(`gestured.js: no reply to '${body.type}' within ${this.options.requestTimeoutMs} ms`));
      }, this.options.requestTimeoutMs);
      this._pending.set(id, { resolve, reject, timer });
      this._socket.send(JSON.stringify({ ...body, id }));
    });
  }

  /** Closes the connection for good. */
  close() {
    this._closed = true;
    clearTimeout(this._retryTimer);
    if (this._socket) this._socket.close(1000);
    this._status("closed");
  }

  // Internals.

  _connect() {
    if (this._closed) return;
    this._status("connecting");
    let socket;
    try {
      socket = new this.options.WebSocket(this.url);
    } catch (error) {
      this._status("connecting", String(error));
      return this._retry();
    }
    this._socket = socket;
    socket.onmessage = (event) => this._receive(event.data);
    socket.onclose = (event) => {
      if (this._socket !== socket) return;
      this._socket = null;
      this.hello = null;
      this._failPending(`connection closed (${event.code}${event.reason ? ": " + event.reason : ""})`);
      if (this._closed) return;
      this._status("connecting", `closed with ${event.code}`);
      this._retry();
    };
    // An error is always followed by close, which does the work.
    socket.onerror = () => {};
  }

  _retry() {
    const jitter = 0.8 + Math.random() * 0.4;
    const delay = Math.round(this._delay * jitter);
    this._delay = Math.min(this._delay * 2, this.options.maxDelayMs);
    this._retryTimer = setTimeout(() => this._connect(), delay);
  }

  _receive(text) {
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      return this._emit("error", { type: "error", code: "client", message: `not JSON: ${text.slice(0, 80)}` });
    }
    if (message.id !== undefined && this._pending.has(message.id)) {
      const { resolve, reject, timer } = this._pending.get(message.id);
      clearTimeout(timer);
      this._pending.delete(message.id);
      if (message.type === "error") reject(new GesturedError(message));
      else resolve(message);
      return;
    }
    if (message.type === "hello") {
      this.hello = message;
      this._delay = this.options.minDelayMs;
      this._emit(message.type, message);
      if (!this._subscription) return this._status("open");
      // Re-subscribing is the module's business: "open" once the subscription is in force; a
      // refusal is reported as an `error` message (and the connection stays up, unsubscribed).
      this.request({ type: "subscribe", ...this._subscription }).then(
        () => this._status("open"),
        (error) => this._emit("error", error.error ?? { type: "error", code: "client", message: String(error) }),
      );
      return;
    }
    this._emit(message.type, message);
  }

  _emit(type, message) {
    for (const key of [type, "*"]) {
      for (const callback of this._handlers.get(key) ?? []) {
        try {
          callback(message);
        } catch (error) {
          // One faulty callback must not starve the others.
          setTimeout(() => {
            throw error;
          });
        }
      }
    }
  }

  _status(state, detail) {
    this._emit("status", { type: "status", state, detail });
  }

  _failPending(reason) {
    for (const [, { reject, timer }] of this._pending) {
      clearTimeout(timer);
      reject(new Error(`gestured.js: ${reason}`));
    }
    this._pending.clear();
  }
}
