export type Json = string | number | boolean | null | { [key: string]: Json | undefined } | Json[]

export type Database = {
  public: {
    Tables: {
      auction_branding: {
        Row: {
          app_name: string | null
          auction_id: string
          logo_url: string | null
          primary_color: string | null
          secondary_color: string | null
          updated_at: string
        }
        Insert: {
          app_name?: string | null
          auction_id: string
          logo_url?: string | null
          primary_color?: string | null
          secondary_color?: string | null
          updated_at?: string
        }
        Update: {
          app_name?: string | null
          auction_id?: string
          logo_url?: string | null
          primary_color?: string | null
          secondary_color?: string | null
          updated_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "auction_branding_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: true
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
        ]
      }
      auction_invitations: {
        Row: {
          accepted_at: string | null
          accepted_by: string | null
          auction_id: string
          created_at: string
          email: string
          expires_at: string
          id: string
          invited_by: string | null
          revoked_at: string | null
          role: string
          token_hash: string
        }
        Insert: {
          accepted_at?: string | null
          accepted_by?: string | null
          auction_id: string
          created_at?: string
          email: string
          expires_at?: string
          id?: string
          invited_by?: string | null
          revoked_at?: string | null
          role: string
          token_hash: string
        }
        Update: {
          accepted_at?: string | null
          accepted_by?: string | null
          auction_id?: string
          created_at?: string
          email?: string
          expires_at?: string
          id?: string
          invited_by?: string | null
          revoked_at?: string | null
          role?: string
          token_hash?: string
        }
        Relationships: [
          {
            foreignKeyName: "auction_invitations_accepted_by_fkey"
            columns: ["accepted_by"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "auction_invitations_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: false
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "auction_invitations_invited_by_fkey"
            columns: ["invited_by"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
        ]
      }
      auction_members: {
        Row: {
          auction_id: string
          id: string
          joined_at: string
          role: string
          user_id: string
        }
        Insert: {
          auction_id: string
          id?: string
          joined_at?: string
          role: string
          user_id: string
        }
        Update: {
          auction_id?: string
          id?: string
          joined_at?: string
          role?: string
          user_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "auction_members_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: false
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "auction_members_user_id_fkey"
            columns: ["user_id"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
        ]
      }
      auctions: {
        Row: {
          created_at: string
          created_by: string | null
          deleted_at: string | null
          deleted_by: string | null
          id: string
          is_active: boolean
          name: string
          purge_after: string | null
          settings: Json
          slug: string
          subscription_tier: string
          updated_at: string
        }
        Insert: {
          created_at?: string
          created_by?: string | null
          deleted_at?: string | null
          deleted_by?: string | null
          id?: string
          is_active?: boolean
          name: string
          purge_after?: string | null
          settings?: Json
          slug: string
          subscription_tier?: string
          updated_at?: string
        }
        Update: {
          created_at?: string
          created_by?: string | null
          deleted_at?: string | null
          deleted_by?: string | null
          id?: string
          is_active?: boolean
          name?: string
          purge_after?: string | null
          settings?: Json
          slug?: string
          subscription_tier?: string
          updated_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "auctions_created_by_fkey"
            columns: ["created_by"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "auctions_deleted_by_fkey"
            columns: ["deleted_by"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
        ]
      }
      channel_notification_preferences: {
        Row: {
          auction_id: string
          channel_id: string
          preference: string
          updated_at: string
          user_id: string
        }
        Insert: {
          auction_id: string
          channel_id: string
          preference?: string
          updated_at?: string
          user_id?: string
        }
        Update: {
          auction_id?: string
          channel_id?: string
          preference?: string
          updated_at?: string
          user_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "channel_notification_preferences_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: false
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "channel_notification_preferences_channel_id_fkey"
            columns: ["channel_id"]
            isOneToOne: false
            referencedRelation: "channels"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "channel_notification_preferences_user_id_fkey"
            columns: ["user_id"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
        ]
      }
      channel_read_state: {
        Row: {
          auction_id: string
          channel_id: string
          last_read_at: string
          user_id: string
        }
        Insert: {
          auction_id: string
          channel_id: string
          last_read_at?: string
          user_id?: string
        }
        Update: {
          auction_id?: string
          channel_id?: string
          last_read_at?: string
          user_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "channel_read_state_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: false
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "channel_read_state_channel_id_fkey"
            columns: ["channel_id"]
            isOneToOne: false
            referencedRelation: "channels"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "channel_read_state_user_id_fkey"
            columns: ["user_id"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
        ]
      }
      channels: {
        Row: {
          archived_at: string | null
          auction_id: string
          created_at: string
          created_by: string | null
          description: string | null
          id: string
          is_archived: boolean
          is_default: boolean
          location_id: string | null
          name: string
          updated_at: string
        }
        Insert: {
          archived_at?: string | null
          auction_id: string
          created_at?: string
          created_by?: string | null
          description?: string | null
          id?: string
          is_archived?: boolean
          is_default?: boolean
          location_id?: string | null
          name: string
          updated_at?: string
        }
        Update: {
          archived_at?: string | null
          auction_id?: string
          created_at?: string
          created_by?: string | null
          description?: string | null
          id?: string
          is_archived?: boolean
          is_default?: boolean
          location_id?: string | null
          name?: string
          updated_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "channels_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: false
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "channels_created_by_fkey"
            columns: ["created_by"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "channels_location_id_fkey"
            columns: ["location_id"]
            isOneToOne: false
            referencedRelation: "locations"
            referencedColumns: ["id"]
          },
        ]
      }
      datasets: {
        Row: {
          auction_id: string
          columns: Json
          created_at: string
          created_by: string | null
          description: string | null
          id: string
          name: string
          row_count: number
          status: string
          table_name: string | null
          updated_at: string
        }
        Insert: {
          auction_id: string
          columns?: Json
          created_at?: string
          created_by?: string | null
          description?: string | null
          id?: string
          name: string
          row_count?: number
          status?: string
          table_name?: string | null
          updated_at?: string
        }
        Update: {
          auction_id?: string
          columns?: Json
          created_at?: string
          created_by?: string | null
          description?: string | null
          id?: string
          name?: string
          row_count?: number
          status?: string
          table_name?: string | null
          updated_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "datasets_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: false
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "datasets_created_by_fkey"
            columns: ["created_by"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
        ]
      }
      defect_categories: {
        Row: {
          auction_id: string | null
          created_at: string
          display_order: number
          id: string
          is_active: boolean
          name: string
        }
        Insert: {
          auction_id?: string | null
          created_at?: string
          display_order?: number
          id?: string
          is_active?: boolean
          name: string
        }
        Update: {
          auction_id?: string | null
          created_at?: string
          display_order?: number
          id?: string
          is_active?: boolean
          name?: string
        }
        Relationships: [
          {
            foreignKeyName: "defect_categories_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: false
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
        ]
      }
      email_log: {
        Row: {
          created_at: string
          error: string | null
          id: string
          provider_id: string | null
          status: string
          template: string
          to_email: string
          user_id: string | null
        }
        Insert: {
          created_at?: string
          error?: string | null
          id?: string
          provider_id?: string | null
          status: string
          template: string
          to_email: string
          user_id?: string | null
        }
        Update: {
          created_at?: string
          error?: string | null
          id?: string
          provider_id?: string | null
          status?: string
          template?: string
          to_email?: string
          user_id?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "email_log_user_id_fkey"
            columns: ["user_id"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
        ]
      }
      event_outbox: {
        Row: {
          auction_id: string
          data: Json
          event_type: string
          id: string
          occurred_at: string
        }
        Insert: {
          auction_id: string
          data?: Json
          event_type: string
          id?: string
          occurred_at?: string
        }
        Update: {
          auction_id?: string
          data?: Json
          event_type?: string
          id?: string
          occurred_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "event_outbox_event_type_fkey"
            columns: ["event_type"]
            isOneToOne: false
            referencedRelation: "event_types"
            referencedColumns: ["name"]
          },
        ]
      }
      event_types: {
        Row: {
          area: string
          data_fields: string
          emitted_when: string
          fields: Json
          name: string
          sample: Json
          since_version: string
        }
        Insert: {
          area: string
          data_fields?: string
          emitted_when: string
          fields: Json
          name: string
          sample: Json
          since_version: string
        }
        Update: {
          area?: string
          data_fields?: string
          emitted_when?: string
          fields?: Json
          name?: string
          sample?: Json
          since_version?: string
        }
        Relationships: []
      }
      location_assignments: {
        Row: {
          auction_id: string
          created_at: string
          created_by: string | null
          id: string
          location_id: string
          user_id: string
        }
        Insert: {
          auction_id: string
          created_at?: string
          created_by?: string | null
          id?: string
          location_id: string
          user_id: string
        }
        Update: {
          auction_id?: string
          created_at?: string
          created_by?: string | null
          id?: string
          location_id?: string
          user_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "location_assignments_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: false
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "location_assignments_created_by_fkey"
            columns: ["created_by"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "location_assignments_location_id_fkey"
            columns: ["location_id"]
            isOneToOne: false
            referencedRelation: "locations"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "location_assignments_user_id_fkey"
            columns: ["user_id"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
        ]
      }
      location_submission_types: {
        Row: {
          auction_id: string
          display_order: number
          is_required: boolean
          location_id: string
          submission_type_id: string
        }
        Insert: {
          auction_id: string
          display_order?: number
          is_required?: boolean
          location_id: string
          submission_type_id: string
        }
        Update: {
          auction_id?: string
          display_order?: number
          is_required?: boolean
          location_id?: string
          submission_type_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "location_submission_types_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: false
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "location_submission_types_location_id_fkey"
            columns: ["location_id"]
            isOneToOne: false
            referencedRelation: "locations"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "location_submission_types_submission_type_id_auction_id_fkey"
            columns: ["submission_type_id", "auction_id"]
            isOneToOne: false
            referencedRelation: "submission_types"
            referencedColumns: ["id", "auction_id"]
          },
        ]
      }
      locations: {
        Row: {
          address: string | null
          auction_id: string
          created_at: string
          id: string
          is_active: boolean
          name: string
          operating_hours_end: string | null
          operating_hours_start: string | null
          submission_frequency_minutes: number
          updated_at: string
        }
        Insert: {
          address?: string | null
          auction_id: string
          created_at?: string
          id?: string
          is_active?: boolean
          name: string
          operating_hours_end?: string | null
          operating_hours_start?: string | null
          submission_frequency_minutes?: number
          updated_at?: string
        }
        Update: {
          address?: string | null
          auction_id?: string
          created_at?: string
          id?: string
          is_active?: boolean
          name?: string
          operating_hours_end?: string | null
          operating_hours_start?: string | null
          submission_frequency_minutes?: number
          updated_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "locations_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: false
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
        ]
      }
      lot_submission_entries: {
        Row: {
          auction_id: string
          car_count: number
          created_at: string
          id: string
          image_url: string | null
          location_id: string | null
          submission_id: string
          submission_type_id: string
        }
        Insert: {
          auction_id: string
          car_count: number
          created_at?: string
          id?: string
          image_url?: string | null
          location_id?: string | null
          submission_id: string
          submission_type_id: string
        }
        Update: {
          auction_id?: string
          car_count?: number
          created_at?: string
          id?: string
          image_url?: string | null
          location_id?: string | null
          submission_id?: string
          submission_type_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "lot_submission_entries_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: false
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "lot_submission_entries_submission_id_fkey"
            columns: ["submission_id"]
            isOneToOne: false
            referencedRelation: "lot_submissions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "lot_submission_entries_submission_id_fkey"
            columns: ["submission_id"]
            isOneToOne: false
            referencedRelation: "recent_submissions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "lot_submission_entries_submission_type_id_auction_id_fkey"
            columns: ["submission_type_id", "auction_id"]
            isOneToOne: false
            referencedRelation: "submission_types"
            referencedColumns: ["id", "auction_id"]
          },
        ]
      }
      lot_submissions: {
        Row: {
          auction_id: string
          created_at: string
          id: string
          image_url: string | null
          location_id: string
          notes: string | null
          submitted_at: string
          updated_at: string
          user_id: string | null
        }
        Insert: {
          auction_id: string
          created_at?: string
          id?: string
          image_url?: string | null
          location_id: string
          notes?: string | null
          submitted_at?: string
          updated_at?: string
          user_id?: string | null
        }
        Update: {
          auction_id?: string
          created_at?: string
          id?: string
          image_url?: string | null
          location_id?: string
          notes?: string | null
          submitted_at?: string
          updated_at?: string
          user_id?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "lot_submissions_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: false
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "lot_submissions_location_id_auction_id_fkey"
            columns: ["location_id", "auction_id"]
            isOneToOne: false
            referencedRelation: "locations"
            referencedColumns: ["id", "auction_id"]
          },
          {
            foreignKeyName: "lot_submissions_user_id_fkey"
            columns: ["user_id"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
        ]
      }
      message_reactions: {
        Row: {
          auction_id: string
          created_at: string
          emoji: string
          id: string
          message_id: string
          user_id: string
        }
        Insert: {
          auction_id: string
          created_at?: string
          emoji: string
          id?: string
          message_id: string
          user_id?: string
        }
        Update: {
          auction_id?: string
          created_at?: string
          emoji?: string
          id?: string
          message_id?: string
          user_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "message_reactions_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: false
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "message_reactions_message_id_fkey"
            columns: ["message_id"]
            isOneToOne: false
            referencedRelation: "messages"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "message_reactions_message_id_fkey"
            columns: ["message_id"]
            isOneToOne: false
            referencedRelation: "messages_with_reply_count"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "message_reactions_user_id_fkey"
            columns: ["user_id"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
        ]
      }
      messages: {
        Row: {
          auction_id: string
          channel_id: string
          content: string
          created_at: string
          deleted_at: string | null
          edited_at: string | null
          id: string
          is_deleted: boolean
          is_edited: boolean
          mentions: string[]
          message_type: string
          parent_message_id: string | null
          updated_at: string
          user_id: string | null
        }
        Insert: {
          auction_id: string
          channel_id: string
          content: string
          created_at?: string
          deleted_at?: string | null
          edited_at?: string | null
          id?: string
          is_deleted?: boolean
          is_edited?: boolean
          mentions?: string[]
          message_type?: string
          parent_message_id?: string | null
          updated_at?: string
          user_id?: string | null
        }
        Update: {
          auction_id?: string
          channel_id?: string
          content?: string
          created_at?: string
          deleted_at?: string | null
          edited_at?: string | null
          id?: string
          is_deleted?: boolean
          is_edited?: boolean
          mentions?: string[]
          message_type?: string
          parent_message_id?: string | null
          updated_at?: string
          user_id?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "messages_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: false
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "messages_channel_id_fkey"
            columns: ["channel_id"]
            isOneToOne: false
            referencedRelation: "channels"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "messages_parent_message_id_fkey"
            columns: ["parent_message_id"]
            isOneToOne: false
            referencedRelation: "messages"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "messages_parent_message_id_fkey"
            columns: ["parent_message_id"]
            isOneToOne: false
            referencedRelation: "messages_with_reply_count"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "messages_user_id_fkey"
            columns: ["user_id"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
        ]
      }
      potential_causes: {
        Row: {
          auction_id: string
          cause_text: string
          created_at: string
          created_by: string | null
          id: string
          order_number: number
          problem_id: string
        }
        Insert: {
          auction_id: string
          cause_text: string
          created_at?: string
          created_by?: string | null
          id?: string
          order_number?: number
          problem_id: string
        }
        Update: {
          auction_id?: string
          cause_text?: string
          created_at?: string
          created_by?: string | null
          id?: string
          order_number?: number
          problem_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "potential_causes_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: false
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "potential_causes_created_by_fkey"
            columns: ["created_by"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "potential_causes_problem_id_fkey"
            columns: ["problem_id"]
            isOneToOne: false
            referencedRelation: "active_problem_reports"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "potential_causes_problem_id_fkey"
            columns: ["problem_id"]
            isOneToOne: false
            referencedRelation: "problem_reports"
            referencedColumns: ["id"]
          },
        ]
      }
      problem_actions: {
        Row: {
          auction_id: string
          completed_at: string | null
          completion_date: string | null
          countermeasure: string | null
          created_at: string
          created_by: string | null
          id: string
          issue: string | null
          problem_id: string
          responsible_person: string | null
          status: string
          updated_at: string
        }
        Insert: {
          auction_id: string
          completed_at?: string | null
          completion_date?: string | null
          countermeasure?: string | null
          created_at?: string
          created_by?: string | null
          id?: string
          issue?: string | null
          problem_id: string
          responsible_person?: string | null
          status?: string
          updated_at?: string
        }
        Update: {
          auction_id?: string
          completed_at?: string | null
          completion_date?: string | null
          countermeasure?: string | null
          created_at?: string
          created_by?: string | null
          id?: string
          issue?: string | null
          problem_id?: string
          responsible_person?: string | null
          status?: string
          updated_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "problem_actions_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: false
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "problem_actions_created_by_fkey"
            columns: ["created_by"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "problem_actions_problem_id_fkey"
            columns: ["problem_id"]
            isOneToOne: false
            referencedRelation: "active_problem_reports"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "problem_actions_problem_id_fkey"
            columns: ["problem_id"]
            isOneToOne: false
            referencedRelation: "problem_reports"
            referencedColumns: ["id"]
          },
        ]
      }
      problem_facts: {
        Row: {
          auction_id: string
          created_at: string
          created_by: string | null
          how_many: string | null
          how_much: string | null
          id: string
          problem_id: string
          updated_at: string
          what: string | null
          when_field: string | null
          where_field: string | null
          who: string | null
        }
        Insert: {
          auction_id: string
          created_at?: string
          created_by?: string | null
          how_many?: string | null
          how_much?: string | null
          id?: string
          problem_id: string
          updated_at?: string
          what?: string | null
          when_field?: string | null
          where_field?: string | null
          who?: string | null
        }
        Update: {
          auction_id?: string
          created_at?: string
          created_by?: string | null
          how_many?: string | null
          how_much?: string | null
          id?: string
          problem_id?: string
          updated_at?: string
          what?: string | null
          when_field?: string | null
          where_field?: string | null
          who?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "problem_facts_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: false
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "problem_facts_created_by_fkey"
            columns: ["created_by"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "problem_facts_problem_id_fkey"
            columns: ["problem_id"]
            isOneToOne: true
            referencedRelation: "active_problem_reports"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "problem_facts_problem_id_fkey"
            columns: ["problem_id"]
            isOneToOne: true
            referencedRelation: "problem_reports"
            referencedColumns: ["id"]
          },
        ]
      }
      problem_reports: {
        Row: {
          area: string | null
          assigned_to: string | null
          auction_id: string
          closed_at: string | null
          created_at: string
          id: string
          issue_name: string
          location_id: string | null
          prepared_by: string | null
          status: string
          submitted_at: string
          updated_at: string
        }
        Insert: {
          area?: string | null
          assigned_to?: string | null
          auction_id: string
          closed_at?: string | null
          created_at?: string
          id?: string
          issue_name: string
          location_id?: string | null
          prepared_by?: string | null
          status?: string
          submitted_at?: string
          updated_at?: string
        }
        Update: {
          area?: string | null
          assigned_to?: string | null
          auction_id?: string
          closed_at?: string | null
          created_at?: string
          id?: string
          issue_name?: string
          location_id?: string | null
          prepared_by?: string | null
          status?: string
          submitted_at?: string
          updated_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "problem_reports_assigned_to_fkey"
            columns: ["assigned_to"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "problem_reports_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: false
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "problem_reports_location_id_fkey"
            columns: ["location_id"]
            isOneToOne: false
            referencedRelation: "locations"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "problem_reports_prepared_by_fkey"
            columns: ["prepared_by"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
        ]
      }
      quality_defects: {
        Row: {
          auction_id: string
          category_id: string
          created_at: string
          id: string
          inspection_id: string
          location_id: string | null
          notes: string | null
        }
        Insert: {
          auction_id: string
          category_id: string
          created_at?: string
          id?: string
          inspection_id: string
          location_id?: string | null
          notes?: string | null
        }
        Update: {
          auction_id?: string
          category_id?: string
          created_at?: string
          id?: string
          inspection_id?: string
          location_id?: string | null
          notes?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "quality_defects_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: false
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "quality_defects_category_id_fkey"
            columns: ["category_id"]
            isOneToOne: false
            referencedRelation: "defect_categories"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "quality_defects_inspection_id_fkey"
            columns: ["inspection_id"]
            isOneToOne: false
            referencedRelation: "quality_inspections"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "quality_defects_inspection_id_fkey"
            columns: ["inspection_id"]
            isOneToOne: false
            referencedRelation: "recent_quality_inspections"
            referencedColumns: ["id"]
          },
        ]
      }
      quality_inspections: {
        Row: {
          auction_id: string
          barcode: string | null
          created_at: string
          id: string
          location_id: string
          notes: string | null
          submitted_at: string
          updated_at: string
          user_id: string | null
          vin_number: string
        }
        Insert: {
          auction_id: string
          barcode?: string | null
          created_at?: string
          id?: string
          location_id: string
          notes?: string | null
          submitted_at?: string
          updated_at?: string
          user_id?: string | null
          vin_number: string
        }
        Update: {
          auction_id?: string
          barcode?: string | null
          created_at?: string
          id?: string
          location_id?: string
          notes?: string | null
          submitted_at?: string
          updated_at?: string
          user_id?: string | null
          vin_number?: string
        }
        Relationships: [
          {
            foreignKeyName: "quality_inspections_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: false
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "quality_inspections_location_id_auction_id_fkey"
            columns: ["location_id", "auction_id"]
            isOneToOne: false
            referencedRelation: "locations"
            referencedColumns: ["id", "auction_id"]
          },
          {
            foreignKeyName: "quality_inspections_user_id_fkey"
            columns: ["user_id"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
        ]
      }
      query_audit_log: {
        Row: {
          auction_id: string
          created_at: string
          dataset_id: string | null
          duration_ms: number | null
          error: string | null
          id: string
          natural_language_query: string | null
          row_count: number | null
          sql: string | null
          status: string
          user_id: string | null
        }
        Insert: {
          auction_id: string
          created_at?: string
          dataset_id?: string | null
          duration_ms?: number | null
          error?: string | null
          id?: string
          natural_language_query?: string | null
          row_count?: number | null
          sql?: string | null
          status?: string
          user_id?: string | null
        }
        Update: {
          auction_id?: string
          created_at?: string
          dataset_id?: string | null
          duration_ms?: number | null
          error?: string | null
          id?: string
          natural_language_query?: string | null
          row_count?: number | null
          sql?: string | null
          status?: string
          user_id?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "query_audit_log_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: false
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "query_audit_log_dataset_id_fkey"
            columns: ["dataset_id"]
            isOneToOne: false
            referencedRelation: "datasets"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "query_audit_log_user_id_fkey"
            columns: ["user_id"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
        ]
      }
      query_conversation_messages: {
        Row: {
          content: string
          conversation_id: string
          created_at: string
          id: number
          role: string
        }
        Insert: {
          content: string
          conversation_id: string
          created_at?: string
          id?: never
          role: string
        }
        Update: {
          content?: string
          conversation_id?: string
          created_at?: string
          id?: never
          role?: string
        }
        Relationships: [
          {
            foreignKeyName: "query_conversation_messages_conversation_id_fkey"
            columns: ["conversation_id"]
            isOneToOne: false
            referencedRelation: "query_conversations"
            referencedColumns: ["id"]
          },
        ]
      }
      query_conversations: {
        Row: {
          auction_id: string
          created_at: string
          dataset_id: string
          id: string
          updated_at: string
          user_id: string | null
        }
        Insert: {
          auction_id: string
          created_at?: string
          dataset_id: string
          id?: string
          updated_at?: string
          user_id?: string | null
        }
        Update: {
          auction_id?: string
          created_at?: string
          dataset_id?: string
          id?: string
          updated_at?: string
          user_id?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "query_conversations_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: false
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "query_conversations_dataset_id_fkey"
            columns: ["dataset_id"]
            isOneToOne: false
            referencedRelation: "datasets"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "query_conversations_user_id_fkey"
            columns: ["user_id"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
        ]
      }
      saved_reports: {
        Row: {
          auction_id: string
          created_at: string
          created_by: string | null
          dataset_id: string | null
          id: string
          is_public: boolean
          name: string
          sql: string
          updated_at: string
          visualization: string
        }
        Insert: {
          auction_id: string
          created_at?: string
          created_by?: string | null
          dataset_id?: string | null
          id?: string
          is_public?: boolean
          name: string
          sql: string
          updated_at?: string
          visualization?: string
        }
        Update: {
          auction_id?: string
          created_at?: string
          created_by?: string | null
          dataset_id?: string | null
          id?: string
          is_public?: boolean
          name?: string
          sql?: string
          updated_at?: string
          visualization?: string
        }
        Relationships: [
          {
            foreignKeyName: "saved_reports_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: false
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "saved_reports_created_by_fkey"
            columns: ["created_by"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "saved_reports_dataset_id_fkey"
            columns: ["dataset_id"]
            isOneToOne: false
            referencedRelation: "datasets"
            referencedColumns: ["id"]
          },
        ]
      }
      submission_types: {
        Row: {
          auction_id: string
          created_at: string
          description: string | null
          id: string
          is_active: boolean
          name: string
        }
        Insert: {
          auction_id: string
          created_at?: string
          description?: string | null
          id?: string
          is_active?: boolean
          name: string
        }
        Update: {
          auction_id?: string
          created_at?: string
          description?: string | null
          id?: string
          is_active?: boolean
          name?: string
        }
        Relationships: [
          {
            foreignKeyName: "submission_types_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: false
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
        ]
      }
      super_admins: {
        Row: {
          created_at: string
          granted_by: string | null
          user_id: string
        }
        Insert: {
          created_at?: string
          granted_by?: string | null
          user_id: string
        }
        Update: {
          created_at?: string
          granted_by?: string | null
          user_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "super_admins_granted_by_fkey"
            columns: ["granted_by"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "super_admins_user_id_fkey"
            columns: ["user_id"]
            isOneToOne: true
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
        ]
      }
      user_push_tokens: {
        Row: {
          created_at: string
          device_name: string | null
          id: string
          last_used_at: string | null
          platform: string
          token: string
          user_id: string
        }
        Insert: {
          created_at?: string
          device_name?: string | null
          id?: string
          last_used_at?: string | null
          platform: string
          token: string
          user_id?: string
        }
        Update: {
          created_at?: string
          device_name?: string | null
          id?: string
          last_used_at?: string | null
          platform?: string
          token?: string
          user_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "user_push_tokens_user_id_fkey"
            columns: ["user_id"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
        ]
      }
      users: {
        Row: {
          avatar_url: string | null
          created_at: string
          email: string | null
          full_name: string | null
          id: string
          updated_at: string
        }
        Insert: {
          avatar_url?: string | null
          created_at?: string
          email?: string | null
          full_name?: string | null
          id: string
          updated_at?: string
        }
        Update: {
          avatar_url?: string | null
          created_at?: string
          email?: string | null
          full_name?: string | null
          id?: string
          updated_at?: string
        }
        Relationships: []
      }
      webhook_deliveries: {
        Row: {
          attempt_count: number
          auction_id: string
          created_at: string
          delivered_at: string | null
          endpoint_id: string
          event_id: string | null
          event_type: string
          id: string
          is_test: boolean
          last_error: string | null
          last_status_code: number | null
          lease_token: string | null
          locked_by: string | null
          locked_until: string | null
          next_attempt_at: string
          payload: Json
          round_start_attempt: number
          status: string
        }
        Insert: {
          attempt_count?: number
          auction_id: string
          created_at?: string
          delivered_at?: string | null
          endpoint_id: string
          event_id?: string | null
          event_type: string
          id?: string
          is_test?: boolean
          last_error?: string | null
          last_status_code?: number | null
          lease_token?: string | null
          locked_by?: string | null
          locked_until?: string | null
          next_attempt_at?: string
          payload: Json
          round_start_attempt?: number
          status?: string
        }
        Update: {
          attempt_count?: number
          auction_id?: string
          created_at?: string
          delivered_at?: string | null
          endpoint_id?: string
          event_id?: string | null
          event_type?: string
          id?: string
          is_test?: boolean
          last_error?: string | null
          last_status_code?: number | null
          lease_token?: string | null
          locked_by?: string | null
          locked_until?: string | null
          next_attempt_at?: string
          payload?: Json
          round_start_attempt?: number
          status?: string
        }
        Relationships: [
          {
            foreignKeyName: "webhook_deliveries_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: false
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "webhook_deliveries_endpoint_id_fkey"
            columns: ["endpoint_id"]
            isOneToOne: false
            referencedRelation: "webhook_endpoints"
            referencedColumns: ["id"]
          },
        ]
      }
      webhook_delivery_attempts: {
        Row: {
          attempt: number
          auction_id: string
          created_at: string
          delivery_id: string
          endpoint_id: string
          error_message: string | null
          event_type: string
          id: string
          response_body: string | null
          response_status: number | null
          response_time_ms: number | null
          status: string
        }
        Insert: {
          attempt: number
          auction_id: string
          created_at?: string
          delivery_id: string
          endpoint_id: string
          error_message?: string | null
          event_type: string
          id?: string
          response_body?: string | null
          response_status?: number | null
          response_time_ms?: number | null
          status: string
        }
        Update: {
          attempt?: number
          auction_id?: string
          created_at?: string
          delivery_id?: string
          endpoint_id?: string
          error_message?: string | null
          event_type?: string
          id?: string
          response_body?: string | null
          response_status?: number | null
          response_time_ms?: number | null
          status?: string
        }
        Relationships: [
          {
            foreignKeyName: "webhook_delivery_attempts_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: false
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "webhook_delivery_attempts_delivery_id_fkey"
            columns: ["delivery_id"]
            isOneToOne: false
            referencedRelation: "webhook_deliveries"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "webhook_delivery_attempts_endpoint_id_fkey"
            columns: ["endpoint_id"]
            isOneToOne: false
            referencedRelation: "webhook_endpoints"
            referencedColumns: ["id"]
          },
        ]
      }
      webhook_endpoints: {
        Row: {
          auction_id: string
          consecutive_failures: number
          created_at: string
          created_by: string | null
          description: string | null
          disabled_at: string | null
          disabled_reason: string | null
          events: string[]
          id: string
          is_active: boolean
          secret: string | null
          updated_at: string
          url: string
        }
        Insert: {
          auction_id: string
          consecutive_failures?: number
          created_at?: string
          created_by?: string | null
          description?: string | null
          disabled_at?: string | null
          disabled_reason?: string | null
          events: string[]
          id?: string
          is_active?: boolean
          secret?: string | null
          updated_at?: string
          url: string
        }
        Update: {
          auction_id?: string
          consecutive_failures?: number
          created_at?: string
          created_by?: string | null
          description?: string | null
          disabled_at?: string | null
          disabled_reason?: string | null
          events?: string[]
          id?: string
          is_active?: boolean
          secret?: string | null
          updated_at?: string
          url?: string
        }
        Relationships: [
          {
            foreignKeyName: "webhook_endpoints_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: false
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "webhook_endpoints_created_by_fkey"
            columns: ["created_by"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
        ]
      }
    }
    Views: {
      active_problem_reports: {
        Row: {
          action_count: number | null
          area: string | null
          assigned_to_name: string | null
          auction_id: string | null
          completed_action_count: number | null
          id: string | null
          issue_name: string | null
          location_name: string | null
          prepared_by_name: string | null
          status: string | null
          submitted_at: string | null
        }
        Relationships: [
          {
            foreignKeyName: "problem_reports_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: false
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
        ]
      }
      messages_with_reply_count: {
        Row: {
          auction_id: string | null
          channel_id: string | null
          content: string | null
          created_at: string | null
          deleted_at: string | null
          edited_at: string | null
          id: string | null
          is_deleted: boolean | null
          is_edited: boolean | null
          last_reply_at: string | null
          mentions: string[] | null
          message_type: string | null
          parent_message_id: string | null
          reply_count: number | null
          updated_at: string | null
          user_id: string | null
        }
        Relationships: [
          {
            foreignKeyName: "messages_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: false
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "messages_channel_id_fkey"
            columns: ["channel_id"]
            isOneToOne: false
            referencedRelation: "channels"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "messages_parent_message_id_fkey"
            columns: ["parent_message_id"]
            isOneToOne: false
            referencedRelation: "messages"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "messages_parent_message_id_fkey"
            columns: ["parent_message_id"]
            isOneToOne: false
            referencedRelation: "messages_with_reply_count"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "messages_user_id_fkey"
            columns: ["user_id"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
        ]
      }
      recent_quality_inspections: {
        Row: {
          auction_id: string | null
          barcode: string | null
          defect_count: number | null
          id: string | null
          inspector_name: string | null
          location_id: string | null
          location_name: string | null
          submitted_at: string | null
          user_id: string | null
          vin_number: string | null
        }
        Relationships: [
          {
            foreignKeyName: "quality_inspections_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: false
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "quality_inspections_location_id_auction_id_fkey"
            columns: ["location_id", "auction_id"]
            isOneToOne: false
            referencedRelation: "locations"
            referencedColumns: ["id", "auction_id"]
          },
          {
            foreignKeyName: "quality_inspections_user_id_fkey"
            columns: ["user_id"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
        ]
      }
      recent_submissions: {
        Row: {
          auction_id: string | null
          entries: Json | null
          entry_count: number | null
          id: string | null
          image_url: string | null
          location_id: string | null
          location_name: string | null
          submitted_at: string | null
          submitted_by: string | null
          total_car_count: number | null
          user_id: string | null
        }
        Relationships: [
          {
            foreignKeyName: "lot_submissions_auction_id_fkey"
            columns: ["auction_id"]
            isOneToOne: false
            referencedRelation: "auctions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "lot_submissions_location_id_auction_id_fkey"
            columns: ["location_id", "auction_id"]
            isOneToOne: false
            referencedRelation: "locations"
            referencedColumns: ["id", "auction_id"]
          },
          {
            foreignKeyName: "lot_submissions_user_id_fkey"
            columns: ["user_id"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
        ]
      }
    }
    Functions: {
      accept_auction_invite: {
        Args: { p_token: string }
        Returns: Json
      }
      admin_auction_ids: {
        Args: never
        Returns: string[]
      }
      admin_auctions: {
        Args: { p_limit?: number; p_query?: string }
        Returns: {
          created_at: string
          id: string
          is_active: boolean
          location_count: number
          member_count: number
          name: string
          slug: string
          subscription_tier: string
        }[]
      }
      admin_confirm_user_email: {
        Args: { p_user_id: string }
        Returns: Json
      }
      admin_delete_user_factor: {
        Args: { p_factor_id: string; p_user_id: string }
        Returns: Json
      }
      admin_mail_outbox: {
        Args: { p_limit?: number }
        Returns: {
          created_at: string
          id: string
          subject: string
          template: string
          to_email: string
        }[]
      }
      admin_matches: {
        Args: { p_fields: string[]; p_query: string }
        Returns: boolean
      }
      admin_push_jobs: {
        Args: { p_limit?: number }
        Returns: {
          attempts: number
          auction_name: string
          created_at: string
          id: string
          kind: string
          last_error: string
          next_attempt_at: string
          sent_at: string
          status: string
        }[]
      }
      admin_require_super_admin: {
        Args: never
        Returns: undefined
      }
      admin_revoke_user_sessions: {
        Args: { p_session_id?: string; p_user_id: string }
        Returns: number
      }
      admin_search_users: {
        Args: { p_limit?: number; p_query?: string }
        Returns: {
          banned_until: string
          created_at: string
          email: string
          email_confirmed_at: string
          factor_count: number
          full_name: string
          id: string
          invited_at: string
          last_sign_in_at: string
          session_count: number
        }[]
      }
      admin_set_user_banned: {
        Args: { p_banned: boolean; p_user_id: string }
        Returns: Json
      }
      admin_user_factors: {
        Args: { p_user_id: string }
        Returns: {
          created_at: string
          factor_type: string
          friendly_name: string
          id: string
          status: string
        }[]
      }
      admin_user_sessions: {
        Args: { p_user_id: string }
        Returns: {
          aal: string
          created_at: string
          id: string
          ip: string
          not_after: string
          refreshed_at: string
          user_agent: string
        }[]
      }
      anonymize_user: {
        Args: { p_user_id?: string }
        Returns: Json
      }
      assert_time_zone: {
        Args: { p_zone: string }
        Returns: undefined
      }
      auction_timezone: {
        Args: { p_auction_id: string }
        Returns: string
      }
      can_undelete_auction: {
        Args: { p_auction_id: string }
        Returns: boolean
      }
      can_write_inspection: {
        Args: { p_inspection_id: string }
        Returns: boolean
      }
      can_write_problem: {
        Args: { p_problem_id: string }
        Returns: boolean
      }
      can_write_submission: {
        Args: { p_submission_id: string }
        Returns: boolean
      }
      change_member_role: {
        Args: { p_auction_id: string; p_new_role: string; p_user_id: string }
        Returns: {
          auction_id: string
          id: string
          joined_at: string
          role: string
          user_id: string
        }
        SetofOptions: {
          from: "*"
          to: "auction_members"
          isOneToOne: true
          isSetofReturn: false
        }
      }
      channel_is_open: {
        Args: { p_channel_id: string }
        Returns: boolean
      }
      create_lot_submission_with_entries: {
        Args: { p_entries: Json; p_image_url?: string; p_location_id: string; p_notes?: string }
        Returns: Json
      }
      current_user_admin_auction_ids: {
        Args: never
        Returns: string[]
      }
      current_user_assigned_location_ids: {
        Args: never
        Returns: string[]
      }
      current_user_auction_ids: {
        Args: never
        Returns: string[]
      }
      current_user_co_member_ids: {
        Args: never
        Returns: string[]
      }
      current_user_hidden_channel_ids: {
        Args: never
        Returns: string[]
      }
      delete_auction: {
        Args: { p_auction_id: string }
        Returns: {
          created_at: string
          created_by: string | null
          deleted_at: string | null
          deleted_by: string | null
          id: string
          is_active: boolean
          name: string
          purge_after: string | null
          settings: Json
          slug: string
          subscription_tier: string
          updated_at: string
        }
        SetofOptions: {
          from: "*"
          to: "auctions"
          isOneToOne: true
          isSetofReturn: false
        }
      }
      deleted_auction_ids: {
        Args: never
        Returns: string[]
      }
      display_name: {
        Args: { p_email: string; p_full_name: string }
        Returns: string
      }
      get_all_locations_stats: {
        Args: { p_end_date: string; p_start_date: string }
        Returns: {
          auction_id: string
          average_car_count: number
          last_submitted_at: string
          location_id: string
          location_name: string
          total_car_count: number
          total_submissions: number
        }[]
      }
      get_defect_trends: {
        Args: { p_end_date: string; p_location_id?: string; p_start_date: string }
        Returns: {
          category: string
          category_id: string
          day: string
          defect_count: number
        }[]
      }
      get_location_stats: {
        Args: { p_end_date: string; p_location_id: string; p_start_date: string }
        Returns: Json
      }
      get_location_submission_types_ordered: {
        Args: { p_location_id: string }
        Returns: {
          description: string
          display_order: number
          id: string
          is_required: boolean
          type_name: string
        }[]
      }
      get_pending_submissions: {
        Args: { p_now?: string }
        Returns: {
          auction_id: string
          last_submitted_at: string
          location_id: string
          location_name: string
          minutes_overdue: number
          submission_frequency_minutes: number
        }[]
      }
      get_submission_with_entries: {
        Args: { p_submission_id: string }
        Returns: Json
      }
      get_total_unread_count: {
        Args: { p_auction_id: string }
        Returns: number
      }
      get_unread_counts: {
        Args: { p_auction_id: string }
        Returns: {
          channel_id: string
          unread_count: number
        }[]
      }
      get_user_auction_role: {
        Args: { p_auction_id: string }
        Returns: string
      }
      invite_user_to_auction: {
        Args: { p_auction_id: string; p_email: string; p_role?: string }
        Returns: Json
      }
      is_anonymous_caller: {
        Args: never
        Returns: boolean
      }
      is_auction_admin_or_above: {
        Args: { p_auction_id: string }
        Returns: boolean
      }
      is_auction_member: {
        Args: { p_auction_id: string }
        Returns: boolean
      }
      is_placeholder_email: {
        Args: { p_email: string }
        Returns: boolean
      }
      is_super_admin: {
        Args: never
        Returns: boolean
      }
      list_deleted_auctions: {
        Args: never
        Returns: {
          deleted_at: string
          deleted_by: string
          deleted_by_name: string
          id: string
          member_count: number
          name: string
          purge_after: string
          slug: string
        }[]
      }
      location_recipients: {
        Args: { p_location_id: string }
        Returns: string[]
      }
      log_email: {
        Args: { p_error?: string; p_provider_id?: string; p_status: string; p_template: string; p_to_email: string }
        Returns: string
      }
      mark_channel_as_read: {
        Args: { p_channel_id: string }
        Returns: Json
      }
      member_auction_ids: {
        Args: never
        Returns: string[]
      }
      members_can_create_channels: {
        Args: { p_auction_id: string }
        Returns: boolean
      }
      purge_deleted_auction_now: {
        Args: { p_auction_id: string }
        Returns: Json
      }
      remove_auction_member: {
        Args: { p_auction_id: string; p_user_id: string }
        Returns: Json
      }
      replay_failed_webhook_deliveries: {
        Args: { endpoint_id: string; since: string }
        Returns: Json
      }
      replay_webhook_delivery: {
        Args: { delivery_id: string }
        Returns: Json
      }
      restore_deleted_auction: {
        Args: { p_auction_id: string }
        Returns: {
          created_at: string
          created_by: string | null
          deleted_at: string | null
          deleted_by: string | null
          id: string
          is_active: boolean
          name: string
          purge_after: string | null
          settings: Json
          slug: string
          subscription_tier: string
          updated_at: string
        }
        SetofOptions: {
          from: "*"
          to: "auctions"
          isOneToOne: true
          isSetofReturn: false
        }
      }
      retry_webhook_delivery_now: {
        Args: { delivery_id: string }
        Returns: Json
      }
      test_webhook: {
        Args: { endpoint_id: string; event_type: string }
        Returns: Json
      }
      transfer_auction_ownership: {
        Args: { p_auction_id: string; p_new_owner_id: string }
        Returns: Json
      }
      user_display_name: {
        Args: { p_user_id: string }
        Returns: string
      }
      user_ref: {
        Args: { p_user_id: string }
        Returns: Json
      }
    }
    Enums: {
      [_ in never]: never
    }
    CompositeTypes: {
      [_ in never]: never
    }
  }
}

type DatabaseWithoutInternals = Omit<Database, "__InternalSupabase">

type DefaultSchema = DatabaseWithoutInternals[Extract<keyof Database, "public">]

export type Tables<
  DefaultSchemaTableNameOrOptions extends
    | keyof (DefaultSchema["Tables"] & DefaultSchema["Views"])
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends DefaultSchemaTableNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof (DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"] &
        DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Views"])
    : never = never,
> = DefaultSchemaTableNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? (DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"] &
      DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Views"])[TableName] extends {
      Row: infer R
    }
    ? R
    : never
  : DefaultSchemaTableNameOrOptions extends keyof (DefaultSchema["Tables"] & DefaultSchema["Views"])
    ? (DefaultSchema["Tables"] & DefaultSchema["Views"])[DefaultSchemaTableNameOrOptions] extends {
        Row: infer R
      }
      ? R
      : never
    : never

export type TablesInsert<
  DefaultSchemaTableNameOrOptions extends
    | keyof DefaultSchema["Tables"]
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends DefaultSchemaTableNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"]
    : never = never,
> = DefaultSchemaTableNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"][TableName] extends {
      Insert: infer I
    }
    ? I
    : never
  : DefaultSchemaTableNameOrOptions extends keyof DefaultSchema["Tables"]
    ? DefaultSchema["Tables"][DefaultSchemaTableNameOrOptions] extends {
        Insert: infer I
      }
      ? I
      : never
    : never

export type TablesUpdate<
  DefaultSchemaTableNameOrOptions extends
    | keyof DefaultSchema["Tables"]
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends DefaultSchemaTableNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"]
    : never = never,
> = DefaultSchemaTableNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"][TableName] extends {
      Update: infer U
    }
    ? U
    : never
  : DefaultSchemaTableNameOrOptions extends keyof DefaultSchema["Tables"]
    ? DefaultSchema["Tables"][DefaultSchemaTableNameOrOptions] extends {
        Update: infer U
      }
      ? U
      : never
    : never

export type Enums<
  DefaultSchemaEnumNameOrOptions extends
    | keyof DefaultSchema["Enums"]
    | { schema: keyof DatabaseWithoutInternals },
  EnumName extends DefaultSchemaEnumNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchemaEnumNameOrOptions["schema"]]["Enums"]
    : never = never,
> = DefaultSchemaEnumNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[DefaultSchemaEnumNameOrOptions["schema"]]["Enums"][EnumName]
  : DefaultSchemaEnumNameOrOptions extends keyof DefaultSchema["Enums"]
    ? DefaultSchema["Enums"][DefaultSchemaEnumNameOrOptions]
    : never

export type CompositeTypes<
  PublicCompositeTypeNameOrOptions extends
    | keyof DefaultSchema["CompositeTypes"]
    | { schema: keyof DatabaseWithoutInternals },
  CompositeTypeName extends PublicCompositeTypeNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[PublicCompositeTypeNameOrOptions["schema"]]["CompositeTypes"]
    : never = never,
> = PublicCompositeTypeNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[PublicCompositeTypeNameOrOptions["schema"]]["CompositeTypes"][CompositeTypeName]
  : PublicCompositeTypeNameOrOptions extends keyof DefaultSchema["CompositeTypes"]
    ? DefaultSchema["CompositeTypes"][PublicCompositeTypeNameOrOptions]
    : never

export const Constants = {
  public: {
    Enums: {},
  },
} as const
