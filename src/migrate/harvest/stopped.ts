/** The harvest stopped; `exitCode` 2 for an operator's mistake, 1 for the source or a failure, 130 when interrupted. */
export class HarvestStopped extends Error {
  override readonly name = 'HarvestStopped';
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}
