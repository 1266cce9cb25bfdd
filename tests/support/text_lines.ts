/** Splits a text stream into lines (LF or CRLF), without the line ends. */
export class TextLineStream extends TransformStream<string, string> {
  constructor() {
    let buffer = "";
    super({
      transform(chunk, controller) {
        buffer += chunk;
        const parts = buffer.split(/\r?\n/);
        buffer = parts.pop() ?? "";
        for (const part of parts) controller.enqueue(part);
      },
      flush(controller) {
        if (buffer !== "") controller.enqueue(buffer);
      },
    });
  }
}
