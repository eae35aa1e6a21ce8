// Where a block template's references are looked up: a reusable block (`<!-- wp:block {"ref":12} /-->`, a
// wp_block post) and a template part (`<!-- wp:template-part {"slug":"footer"} /-->`). The content store (wp/v2
// blocks and template-parts) implements it; the renderer only asks, so it never names a repository.

export interface BlockSource {
  /** The block markup of reusable block `id`; null when there is none (deleted, never made, not published). */
  reusableBlock(id: number): Promise<string | null>;
  /** The block markup of template part `slug`; null when there is none. */
  templatePart(slug: string): Promise<string | null>;
}

/** The source while Tern has no content store: it finds nothing, so a reference renders as nothing. */
export const NO_BLOCKS: BlockSource = {
  reusableBlock: () => Promise.resolve(null),
  templatePart: () => Promise.resolve(null),
};
