// Appends SQL text and bind parameters side by side: values only ever become `$n`.

export interface Statement {
  readonly sql: string;
  readonly params: readonly unknown[];
}

export class SqlBuilder {
  private parts: string[] = [];
  readonly params: unknown[] = [];
  push(...text: string[]): this {
    this.parts.push(...text);
    return this;
  }
  /** Appends a placeholder for `value`, with an optional cast taken from the schema cache. */
  param(value: unknown, cast?: string): this {
    this.params.push(value);
    this.parts.push(`$${this.params.length}${cast ? `::${cast}` : ''}`);
    return this;
  }
  build(): Statement {
    return { sql: this.parts.join(''), params: this.params };
  }
}

/** A Postgres array literal for `= ANY($n)`: every element double-quoted, so no element can break out. */
export function arrayLiteral(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`;
}
