// Garuda passes session.messages straight to the Anthropic SDK and keeps what
// it returns: Message and MessageParam are assignable both ways, without casts.
// Compiled (not run) by tests/smoke/acceptance.test.mjs against the SDK.
import type { MessageParam, ContentBlockParam, MessageCreateParams } from "@anthropic-ai/sdk/resources/messages";
import type { Message, ContentBlock, SessionState } from "@garuda/session";

declare const fromSdk: MessageParam[];
declare const fromUs: Message[];
export const ours: Message[] = fromSdk;
export const theirs: MessageParam[] = fromUs;
declare const sdkBlock: ContentBlockParam;
declare const ourBlock: ContentBlock;
export const b1: ContentBlock = sdkBlock;
export const b2: ContentBlockParam = ourBlock;
declare const state: SessionState;
export const request: MessageCreateParams = { model: "claude-sonnet-4-5", max_tokens: 1024, messages: state.messages };
export function idOf(block: ContentBlock): string | undefined {
  if (block.type === "tool_use") return block.id;
  return undefined;
}
// @ts-expect-error a misspelt role does not compile
export const misspelt: Message = { role: "asistant", content: "hi" };
// @ts-expect-error a misspelt block type does not compile
export const badBlock: ContentBlock = { type: "tool-use", id: "t", name: "bash", input: {} };
